SELECT initcap(b), quote_ident(b), quote_literal(b), octet_length(b), bit_length(b), char_length(h) FROM t;
