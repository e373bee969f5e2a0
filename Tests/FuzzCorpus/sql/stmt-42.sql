SELECT * FROM stv_slices; SELECT * FROM stv_tbl_perm;
