"""docs/semantics.md is generated from running its cases: it must say what the code does
today (every refusal and run-time message as the code words it)."""

from autograph.tools import semantics_page


def test_semantics_page_is_what_running_its_cases_gives(capsys):
    with open(semantics_page.DEFAULT_OUTPUT, encoding="utf-8") as page:
        written = page.read()
    assert written == semantics_page.render(), (
        "docs/semantics.md is stale: run python -m autograph.tools.semantics_page")


def test_semantics_page_lists_each_supported_construct_once():
    constructs = [case.construct for case in semantics_page.CASES]
    assert len(constructs) == len(set(constructs))
    text = " ".join(constructs)
    for construct in ("`if`/`elif`/`else`", "`while`", "Python list", "`range(n)`",
                      "a tensor (its rows)", "a dataset", "dataset iterator", "`break`",
                      "`return`", "`try`/`except`", "`try`/`finally`", "`with`", "`assert`",
                      "`print`", "`global`", "`nonlocal`", "`list.pop`", "`dict.update`",
                      "`set.add`", "alias", "`s.v`", "comprehension", "lambda",
                      "nested function", "`yield`", "`match`", "`del`", "walrus",
                      "f-string"):
        assert construct in text, construct


def test_pending_rows_are_the_staged_container_global_and_closure_patterns():
    pending = {case.construct for case in semantics_page.CASES if case.pending}
    assert all(any(word in construct for word in ("global", "nonlocal", "list.", "dict.",
                                                  "set.", "alias", "key created"))
               for construct in pending), pending
