EXPLAIN SELECT l_orderkey, sum(l_extendedprice) FROM lineitem JOIN orders ON l_orderkey = o_orderkey GROUP BY 1;
