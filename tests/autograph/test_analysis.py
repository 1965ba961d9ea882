"""autograph.pyct.analysis: names read and assigned (activity), and per statement the modified,
live-out, loop-carried and definitely-defined names (dataflow)."""

import textwrap

import gast
import pytest

from autograph.pyct import parsing
from autograph.pyct.analysis import activity, dataflow


def parse(source):
    module, _ = parsing.parse_source(textwrap.dedent(source))
    return module.body[0]


def statements(function_node, kind):
    """The statements of type `kind` in the function, in source order."""
    found = [n for n in gast.walk(function_node) if isinstance(n, kind)]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def analysed(source, kind, index=0):
    node = parse(source)
    annotations = dataflow.analyze(node)
    return annotations.info(statements(node, kind)[index]), annotations


# -- activity ----------------------------------------------------------------------------------


def body_of(source):
    return parse("def f():\n" + textwrap.indent(textwrap.dedent(source), "    ")).body


def test_assigned_names_of_simple_targets():
    body = body_of("""
        a = 1
        b, (c, d) = x
        e += 1
        f.attr = 2
        g[0] = 3
        del h
    """)
    assert activity.assigned_names(body) == {"a", "b", "c", "d", "e", "h"}


def test_assigned_names_include_loop_targets_imports_handlers_and_walrus():
    body = body_of("""
        for i, j in pairs:
            pass
        import os.path
        from m import n as alias
        with open(p) as fh:
            pass
        try:
            pass
        except E as err:
            pass
        if (w := 3):
            pass
    """)
    assert activity.assigned_names(body) == {"i", "j", "os", "alias", "fh", "err", "w"}


def test_nested_scopes_bind_only_their_own_name():
    body = body_of("""
        def inner():
            hidden = 1
        class K:
            attr = 2
        lam = lambda q: q
        comp = [k for k in range(3)]
    """)
    assert activity.assigned_names(body) == {"inner", "K", "lam", "comp"}


def test_read_names_count_augmented_targets_and_free_variables_of_nested_functions():
    body = body_of("""
        total += step
        def inner():
            return outer_value
        fn = lambda: captured
        y = [v * scale for v in data]
    """)
    reads = activity.read_names(body)
    assert {"total", "step", "outer_value", "captured", "scale", "data"} <= reads
    assert "y" not in reads and "fn" not in reads


def test_declared_global_and_parameter_names():
    node = parse("""
        def f(a, b=1, *args, c, d=2, **kw):
            global counter
            counter = a
    """)
    assert activity.declared_global(node) == {"counter"}
    assert activity.parameter_names(node) == ["a", "b", "c", "d", "args", "kw"]


# -- modified ----------------------------------------------------------------------------------


def test_lookup_of_a_node_the_analysis_never_saw_raises_naming_it():
    node = parse("""
        def f(x):
            if x:
                x = 1
            return x
    """)
    annotations = dataflow.analyze(node)
    assert annotations.has(statements(node, gast.If)[0])
    with pytest.raises(dataflow.UnanalysedNodeError, match="Return at line 5"):
        annotations.info(statements(node, gast.Return)[0])
    with pytest.raises(KeyError, match="While .no line: a generated node"):
        annotations.info(gast.While(test=gast.Constant(value=True, kind=None), body=[],
                                    orelse=[]))
    assert not annotations.has(statements(node, gast.Return)[0])


def test_if_modified_is_the_union_of_both_branches():
    info, _ = analysed("""
        def f(a):
            if a:
                b = 1
                c = 2
            else:
                d = 3
            return b
    """, gast.If)
    assert info.modified == {"b", "c", "d"}


def test_for_modified_includes_the_target():
    info, _ = analysed("""
        def f(xs):
            s = 0
            for i, x in xs:
                s += x
            return s
    """, gast.For)
    assert info.modified == {"i", "x", "s"}


# -- liveness ----------------------------------------------------------------------------------


def test_live_out_is_what_is_read_later_before_being_reassigned():
    info, _ = analysed("""
        def f(a):
            if a:
                b = 1
                c = 2
                d = 3
            c = 5
            return b + c
    """, gast.If)
    assert info.live_out == {"b"}  # c is reassigned before it is read, d is never read
    assert info.state_names(is_loop=False) == ("b",)


def test_name_read_by_a_later_lambda_is_live():
    info, _ = analysed("""
        def f(a):
            if a:
                b = 1
            else:
                b = 2
            return lambda: b
    """, gast.If)
    assert info.live_out == {"b"}


def test_name_read_only_after_reassignment_is_not_live():
    info, _ = analysed("""
        def f(a):
            x = 1
            if a:
                x = 2
            x = 3
            return x
    """, gast.If)
    assert info.modified == {"x"}
    assert info.live_out == frozenset()
    assert info.state_names(is_loop=False) == ()


def test_loop_carried_name_read_before_its_assignment_in_the_body():
    info, _ = analysed("""
        def f(n):
            prev = 0
            i = 0
            while i < n:
                tmp = prev
                prev = i
                i += 1
            return i
    """, gast.While)
    assert info.modified == {"tmp", "prev", "i"}
    assert info.live_out == {"i"}
    assert {"i", "n", "prev"} <= info.live_loop
    assert "tmp" not in info.live_loop
    assert info.state_names(is_loop=True) == ("i", "prev")


def test_for_target_and_temporaries_are_not_loop_state():
    info, _ = analysed("""
        def f(xs):
            s = 0
            for i in xs:
                t = i * 2
                s = s + t
            return s
    """, gast.For)
    assert info.state_names(is_loop=True) == ("s",)


def test_with_target_is_bound_by_the_with_and_is_no_loop_state():
    info, _ = analysed("""
        def f(ds, w):
            for x in ds:
                with make_tape() as tape:
                    loss = x * w
                g = tape.gradient(loss, w)
                w = w - g
            return w
    """, gast.For)
    assert "tape" not in info.live_loop
    assert info.state_names(is_loop=True) == ("w",)


def test_with_item_may_read_the_target_of_an_earlier_item():
    info, _ = analysed("""
        def f(n, a):
            while n > 0:
                with open_a() as a, use(a) as b:
                    n = n - b
            return n
    """, gast.While)
    assert "a" not in info.live_loop


def test_with_target_read_in_its_own_context_expression_stays_live():
    info, _ = analysed("""
        def f(n, a):
            while n > 0:
                with reopen(a) as a:
                    n = n - a
            return n
    """, gast.While)
    assert info.state_names(is_loop=True) == ("a", "n")


def test_state_names_are_sorted():
    info, _ = analysed("""
        def f(n):
            zeta = alpha = mid = 0
            while n > 0:
                zeta += 1
                alpha += 2
                mid += 3
                n -= 1
            return zeta, alpha, mid
    """, gast.While)
    assert info.state_names(is_loop=True) == ("alpha", "mid", "n", "zeta")


def test_loop_flags_are_live_at_the_top_of_the_loop():
    node = parse("""
        def f(n):
            flag_ = False
            while n > 0:
                flag_ = True
                n -= 1
            return n
    """)
    loop = statements(node, gast.While)[0]
    plain = dataflow.analyze(node).info(loop)
    flagged = dataflow.analyze(node, {id(loop): ["flag_"]}).info(loop)
    assert "flag_" not in plain.state_names(True)
    assert flagged.state_names(True) == ("flag_", "n")


def test_nested_statements_are_analysed_separately():
    node = parse("""
        def f(n):
            s = 0
            while n > 0:
                if n % 2:
                    s += n
                    odd = True
                n -= 1
            return s
    """)
    annotations = dataflow.analyze(node)
    inner = annotations.info(statements(node, gast.If)[0])
    assert inner.modified == {"s", "odd"}
    assert inner.live_out == {"s", "n"}
    assert inner.state_names(False) == ("s",)


def test_while_else_reads_count_as_live_after_the_loop():
    info, _ = analysed("""
        def f(n):
            last = 0
            while n > 0:
                last = n
                n -= 1
            else:
                print(last)
            return n
    """, gast.While)
    assert "last" in info.state_names(True)


# -- definedness -------------------------------------------------------------------------------


def test_parameters_and_earlier_assignments_are_defined():
    info, _ = analysed("""
        def f(a, *rest, k=1, **kw):
            b = 1
            if a:
                c = 2
            return c
    """, gast.If)
    assert info.defined_in == {"a", "rest", "k", "kw", "b"}


def test_name_assigned_in_one_branch_only_is_not_defined_afterwards():
    node = parse("""
        def f(a):
            if a:
                b = 1
                c = 1
            else:
                c = 2
            if a:
                pass
    """)
    annotations = dataflow.analyze(node)
    second = statements(node, gast.If)[1]
    assert annotations.info(second).defined_in == {"a", "c"}


def test_names_assigned_in_a_loop_body_are_not_defined_after_it():
    node = parse("""
        def f(xs):
            for x in xs:
                y = x
            while xs:
                z = 1
            if xs:
                pass
    """)
    annotations = dataflow.analyze(node)
    assert annotations.info(statements(node, gast.While)[0]).defined_in == {"xs"}
    assert annotations.info(statements(node, gast.If)[0]).defined_in == {"xs"}


def test_loop_target_is_defined_inside_the_body():
    node = parse("""
        def f(xs):
            for x in xs:
                if x:
                    pass
    """)
    annotations = dataflow.analyze(node)
    assert annotations.info(statements(node, gast.If)[0]).defined_in == {"xs", "x"}


def test_with_target_and_nested_def_are_defined():
    node = parse("""
        def f(p):
            def helper():
                return 1
            with open(p) as fh:
                if fh:
                    pass
    """)
    annotations = dataflow.analyze(node)
    assert annotations.info(statements(node, gast.If)[0]).defined_in == {"p", "helper", "fh"}


def test_try_body_assignments_are_not_definitely_defined():
    node = parse("""
        def f(a):
            try:
                x = g()
            except ValueError:
                pass
            if a:
                pass
    """)
    annotations = dataflow.analyze(node)
    assert annotations.info(statements(node, gast.If)[0]).defined_in == {"a"}


def test_try_else_is_analysed_after_the_try_body():
    node = parse("""
        def f(a):
            try:
                x = g()
            except ValueError:
                return 0
            else:
                if a:
                    y = x
    """)
    annotations = dataflow.analyze(node)
    assert annotations.info(statements(node, gast.If)[0]).defined_in == {"a", "x"}


@pytest.mark.parametrize("kind", [gast.If, gast.While, gast.For])
def test_every_control_flow_statement_is_annotated(kind):
    node = parse("""
        def f(xs):
            for x in xs:
                while x:
                    if x:
                        x -= 1
            return xs
    """)
    annotations = dataflow.analyze(node)
    assert annotations.has(statements(node, kind)[0])
    assert not annotations.has(node)


# -- composites --------------------------------------------------------------------------------


def composite_state(source, kind=gast.If):
    info, _ = analysed(source, kind)
    return tuple(name.text for name in info.composites)


@pytest.mark.parametrize("after, carried", [
    ("d['v'] = 0\n    return d['v']", ()),                # overwritten before any read
    ("y = d['w']\n    d['v'] = 0\n    return y", ()),    # another constant key: another slot
    ("y = d[k]\n    d['v'] = 0\n    return y", ("d['v']",)),  # a variable key may be it
    ("y = d.get('v')\n    d['v'] = 0\n    return y", ("d['v']",)),  # a method reads all
    ("return d['v']", ("d['v']",)),
])
def test_item_of_a_local_dict_is_state_unless_overwritten_before_any_read(after, carried):
    source = "def f(x, k):\n    d = {}\n    if x > 0:\n        d['v'] = x\n    %s\n" % after
    assert composite_state(source) == carried


@pytest.mark.parametrize("after", ["s.v = 0", "g()\n    s.v = 0", ""])
def test_composite_of_an_object_from_outside_is_always_state(after):
    # `s` may have other names: `g` may read `s.v` through one, and so may the caller.
    source = "def f(x, s):\n    if x > 0:\n        s.v = x\n    %s\n" % after
    assert composite_state(source) == ("s.v",)


def test_composite_paths_are_named_as_written():
    assert composite_state("""
        def f(x, s, d, k):
            if x > 0:
                s.a.b = x
                d["v"][k] += 1
                s.items[-1] = x
    """) == ("d['v'][k]", "s.a.b", "s.items[-1]")


def test_composite_read_at_the_top_of_a_loop_is_carried_even_if_overwritten_after():
    assert composite_state("""
        def f(n, s):
            while n > 0:
                s.total = s.total + n
                n -= 1
            s.total = 0
    """, gast.While) == ("s.total",)


def test_composite_of_a_base_rebound_in_the_statement_is_not_state():
    info, _ = analysed("""
        def f(x):
            if x > 0:
                s = make()
                s.v = x
            return s
    """, gast.If)
    assert info.composites == () and info.composites_refused == ()


def test_composite_whose_key_the_statement_assigns_is_refused():
    info, _ = analysed("""
        def f(n, d):
            for i in range(n):
                d[i] = i
                d[g(i)] = i
    """, gast.For)
    assert info.composites == ()
    assert [text for text, _ in info.composites_refused] == ["d[g(i)]", "d[i]"]


@pytest.mark.parametrize("use, carried", [
    ("return 1", ()),                          # the dict dies with the function
    ("return d.get('v', 0) + len(d)", ("d['v']",)),
    ("return d", ("d['v']",)),                 # escapes: the caller sees it
    ("keep(d)\n    return 1", ("d['v']",)),
    ("view = d.values()\n    return 1", ("d['v']",)),  # a view aliases the items
])
def test_items_of_a_local_dict_are_live_only_while_it_can_be_read(use, carried):
    source = "def f(x):\n    d = {}\n    if x > 0:\n        d['v'] = x\n    %s\n" % use
    assert composite_state(source) == carried


def test_objects_held_by_a_local_dict_may_outlive_it():
    assert composite_state("""
        def f(x, s):
            d = {'s': s}
            if x > 0:
                d['s'].v = x
            return 1
    """) == ("d['s'].v",)
