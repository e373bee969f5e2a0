{{ config(materialized='incremental', incremental_strategy='delete+insert', unique_key='order_id') }}

-- Each run adds the orders not loaded yet (and re-merges the last one by its key).
select order_id, customer_id, status, amount, ordered_at
from {{ ref('stg_orders') }}
{% if is_incremental() %}
where order_id >= (select max(order_id) from {{ this }})
{% endif %}
