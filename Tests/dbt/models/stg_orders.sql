{{ config(materialized='view') }}

select order_id, customer_id, status, amount, ordered_at
from {{ ref('orders') }}
where status <> 'cancelled'
