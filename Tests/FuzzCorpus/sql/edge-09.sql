SELECT CAST(c AS decimal(38,38)), CAST(l AS decimal(1,0)), CAST(i AS decimal(38,37)) FROM t;
