"""autograph.pipeline: the pass list states what each pass requires and provides, and an
order that breaks a contract is refused when the pipeline is built."""

import dataclasses

import pytest

from autograph import pipeline


def by_name(name):
    return next(p for p in pipeline.PASSES if p.name == name)


def without(name):
    return [p for p in pipeline.PASSES if p.name != name]


def test_the_declared_pipeline_satisfies_every_contract():
    assert pipeline.build(pipeline.PASSES) == pipeline.PASSES
    assert pipeline.PASSES[-1].name == "function_scopes"


def test_analysis_before_the_jumps_are_lowered_is_refused_naming_the_fact():
    passes = without("analyse")
    passes.insert(0, by_name("analyse"))
    with pytest.raises(pipeline.PipelineError,
                       match="pass 'analyse' .position 0. requires 'breaks-lowered'"):
        pipeline.build(passes)


def test_analysis_before_the_deferred_operands_are_marked_is_refused():
    passes = without("expressions")
    passes.append(by_name("expressions"))
    with pytest.raises(pipeline.PipelineError,
                       match="'analyse'.*requires 'deferred-operands-marked'"):
        pipeline.build(passes)


def test_control_flow_without_converted_calls_is_refused():
    analyse = dataclasses.replace(by_name("analyse"), requires=frozenset())
    passes = [analyse if p.name == "analyse" else p for p in without("expressions")]
    with pytest.raises(pipeline.PipelineError,
                       match="'control_flow'.*requires 'calls-converted'"):
        pipeline.build(passes)


def test_super_calls_after_the_passes_that_generate_functions_is_refused():
    passes = without("super_calls")
    passes.append(by_name("super_calls"))
    with pytest.raises(pipeline.PipelineError, match="'expressions'.*'super-explicit'"):
        pipeline.build(passes)


def test_a_pass_needing_the_analysis_after_it_was_invalidated_is_refused():
    passes = list(pipeline.PASSES)
    passes.append(dataclasses.replace(by_name("try_statements"), name="late",
                                      requires=frozenset({pipeline.ANALYSED})))
    with pytest.raises(pipeline.PipelineError,
                       match="'late'.*'analysed' .invalidated by 'control_flow'."):
        pipeline.build(passes)


def test_a_pass_after_the_analysis_must_state_what_it_invalidates():
    passes = without("try_statements")
    at = [p.name for p in passes].index("analyse") + 1
    passes.insert(at, dataclasses.replace(by_name("try_statements"), invalidates=None))
    with pytest.raises(pipeline.PipelineError,
                       match="'try_statements' changes the tree after the analysis"):
        pipeline.build(passes)
