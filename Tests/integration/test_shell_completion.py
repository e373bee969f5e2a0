# SPDX-License-Identifier: Apache-2.0
"""Tab completion in the interactive shell, through a real pseudo-terminal: statement
keywords, table names after FROM, columns of the tables a statement names, `table.`
columns, as psql completes them. Each statement is typed with its words cut short and
Tab pressed; only completed words make it valid SQL, so its result shows the completion.

Run: SLICEHOUSE_BIN=/path/to/slicehouse python3 -m pytest Tests/integration -q
"""
import re

from conftest import strip_ansi


def test_tab_completes_keywords_tables_and_columns(spawn_shell):
    sh = spawn_shell()
    sh.prompt()
    sh.run("create table tab_orders (order_id int, order_total int);")
    sh.run("insert into tab_orders values (1, 10), (2, 20);")

    # `sel` + Tab -> select; `tab_or` + Tab after FROM -> tab_orders; `order_to` + Tab
    # -> order_total (a column of the table the statement names).
    sh.child.send("sel\t")
    sh.child.send("count(*) as n_found from tab_or\t")
    sh.child.send("where order_to\t")
    out = strip_ansi(sh.run("= 20;"))
    assert re.search(r"n_found\s*\r\n-+\r\n\s*1\r\n\(1 row\)", out), sh.tail()

    # `tab_orders.order_i` + Tab -> tab_orders.order_id.
    sh.child.send("select tab_orders.order_i\t")
    out = strip_ansi(sh.run("from tab_orders order by 1;"))
    assert re.search(r"order_id\s*\r\n-+\r\n\s*1\r\n\s*2\r\n\(2 rows\)", out), sh.tail()

    # Nothing to complete: the word stays as typed (no file names).
    sh.child.send("select 1 as zq\t")
    out = strip_ansi(sh.run(";"))
    assert "(1 row)" in out, sh.tail()
    sh.child.sendline("\\q")
    sh.expect_exit(0)
