SET query_group TO 'x'; RESET ALL;
