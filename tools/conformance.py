#!/usr/bin/env python3
"""The conformance kit (tests/conformance/, docs/bytecode.md "Conformance"), made from this
repository and checked against the current build.

  conformance.py --orbitc PATH --orbit-run PATH --check    (the test suite runs this)
  conformance.py --orbitc PATH --orbit-run PATH --update   (then read `git diff tests/conformance/`)

--check writes nothing: it rebuilds every file of the kit in a temporary directory and
reports each one that differs, is missing or is left over, so the kit can never silently
go stale. --update writes them (and removes left-over files); a human reads the diff.

The kit:
  valid/NAME.orbit      sources (kept by hand); NAME.orbc is `orbitc build NAME.orbit`
                        and NAME.json `orbitc dis --format json NAME.orbc`
  valid/NAME.orbc       files without a source are made here (GENERATED_VALID) from the
                        dump of another file, changed, and encoded by tools/orbc_json.py
  malformed/NAME.orbc   a valid file broken in one place (MALFORMED below);
                        malformed/cases.json names, for each, the section of
                        docs/bytecode.md it breaks and the reference loader's message
  runtime/NAME.*        the runs of the reference runtime: .orbit, .scenario.json, .args
                        (kept by hand), the .orbc built from the source and the exact
                        .history of `orbit-run NAME.orbc --scenario NAME.scenario.json
                        ARGS`. They are golden runtime cases too: tests/golden/run/NAME.orbit,
                        .scenario.json, .args and .history are symbolic links to these
                        files, the one copy (the kit must ship them; tests/golden/run holds as
                        real files only the cases of RUNTIME_EXCLUDED). --check fails on a
                        copy in tests/golden/run; --update moves a new tests/golden/run case here and
                        leaves the links.

Besides, for every valid file: its dump validates against docs/orbc.schema.json, and
encoding the dump again (tools/orbc_json.py, a second writer of the format made from the
document) gives the file back byte for byte: the dump loses nothing.
"""
import argparse
import copy
import difflib
import json
import os
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import orbc_json  # noqa: E402
import validate_json  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = os.path.join(ROOT, 'tests', 'conformance')
GOLDEN_RUN = os.path.join(ROOT, 'tests', 'golden', 'run')
SCHEMA = os.path.join(ROOT, 'docs', 'orbc.schema.json')

# tests/golden/run cases that test orbit-run's own command line (a malformed scenario, an
# input that does not match the contract) or what only its scenarios script (an outcome's
# `times`, a child workflow replaced by a script), not the semantics of a file: not in the kit.
RUNTIME_EXCLUDED = ('scenario_',)
# The files of a runtime case that tests/golden/run and the kit share (tests/golden/run links to the
# kit's); the kit adds NAME.orbc.
RUNTIME_SHARED = ('.orbit', '.scenario.json', '.args', '.history')


# ---- helpers for the cases below ----

def code_block(doc, index, instructions, line=1, column=1):
    """Replaces code block `index` by `instructions` ((op, operand, ...) tuples), with one
    position entry."""
    out, offset = [], 0
    for op, *operands in instructions:
        out.append({'offset': offset, 'op': op, 'operands': list(operands)})
        offset += len(orbc_json.instruction_bytes(out[-1]))
    block = doc['code'][index]
    block['positions'] = [{'offset': 0, 'line': line, 'column': column}]
    block['instructions'] = out
    block['length'] = offset
    return doc


def step_of(doc, workflow, name):
    """The step called `name` of workflow number `workflow`."""
    for s in doc['workflows'][workflow]['steps']:
        if doc['strings'][s['name']] == name:
            return s
    raise KeyError(name)


def patch(data, offset, raw, reseal=True):
    data = bytearray(data)
    data[offset:offset + len(raw)] = raw
    return orbc_json.seal(bytes(data)) if reseal else bytes(data)


def section_offset(doc, name):
    return next(s['offset'] for s in doc['sections'] if s['name'] == name)

def steps(doc, workflow=0):
    return doc['workflows'][workflow]['steps']


def change(path_and_value):
    """A change that sets one value: ((key, key, ...), value)."""
    keys, value = path_and_value

    def apply(doc):
        target = doc
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
        return doc
    return apply


def set_step(step_name, **fields):
    """A change to fields of step `step_name` of the first workflow."""
    def apply(doc):
        step_of(doc, 0, step_name).update(fields)
        return doc
    return apply


def set_code(index, *instructions):
    """A change that replaces code block `index` (`notify`'s `when` in checkout: 3)."""
    return lambda doc: code_block(doc, index, instructions)


def add_string(doc, text):
    doc['strings'].append(text)
    return len(doc['strings']) - 1


# ---- valid files without a source ----

def unknown_sections(doc):
    """A newer minor version with two sections this version does not know: one between
    TYPES and TASKS, one at the end. A reader skips them."""
    doc['minor'] = 3
    at = [s['name'] for s in doc['sections']].index('TASKS')
    doc['sections'].insert(at, {'id': 77, 'name': None, 'offset': 0, 'length': 3,
                                'payload': '616263'})
    doc['sections'].append({'id': 4096, 'name': None, 'offset': 0, 'length': 0,
                            'payload': ''})
    return doc


def plain_jump(doc):
    """`jump`, which orbitc never writes: `{ to: input.email }` when a constant is true,
    else `{ to: !false }`. Both paths reach the record with one value on the stack."""
    doc['constants'] = [{'kind': 'bool', 'value': True}]
    return code_block(doc, 0, [('const', 0), ('jump_if_false', 21), ('input',),
                               ('field', 4), ('jump', 22), ('not',), ('record', 1, 1),
                               ('return',)], 7, 10)


def duplicate_strings(doc):
    """The string table may hold the same text twice (a writer need not deduplicate):
    names are compared by their text, not their index."""
    doc['strings'].append(doc['strings'][5])      # "send", again
    doc['workflows'][0]['steps'][0]['name'] = len(doc['strings']) - 1
    return doc


GENERATED_VALID = [
    ('unknown_sections', 'example', unknown_sections),
    ('plain_jump', 'example', plain_jump),
    ('duplicate_strings', 'example', duplicate_strings),
]


# ---- malformed files: (name, base, section of docs/bytecode.md, what it breaks, change) ----
# A change takes the dump of the base (a dict) and returns a dict to encode, or takes
# ('bytes', data, dump) and returns bytes.

def on_bytes(change):
    change.on_bytes = True
    return change


MALFORMED = [
    # 1, 2: the file
    ('too_short', 'example', '2', 'a file is at least its 16-byte header',
     on_bytes(lambda data, doc: data[:10])),
    ('bad_magic', 'example', '2', 'the magic is "ORBC"',
     on_bytes(lambda data, doc: b'ORBX' + data[4:])),
    ('major_2', 'example', '2', 'a reader rejects another major version',
     on_bytes(lambda data, doc: patch(data, 4, struct.pack('<H', 2)))),
    ('length_field', 'example', '2', 'file_length is the size of the whole file',
     on_bytes(lambda data, doc: patch(data, 12, struct.pack('<I', len(data) + 1)))),
    ('bad_checksum', 'example', '2', 'the checksum is the CRC-32C of bytes 12..end',
     on_bytes(lambda data, doc: patch(data, len(data) - 1, bytes([data[-1] ^ 1]), False))),
    ('section_past_end', 'example', '2', 'a section lies inside the file',
     on_bytes(lambda data, doc: patch(data, 20, struct.pack('<I', 0x7FFFFFFF)))),
    ('section_header_cut', 'example', '2', 'a section header is 8 bytes',
     on_bytes(lambda data, doc: patch(data + b'\x07\x00\x00',
                                      12, struct.pack('<I', len(data) + 3)))),
    ('sections_out_of_order', 'example', '2', 'known sections appear in increasing id order',
     lambda doc: dict(doc, sections=[doc['sections'][1], doc['sections'][0]] +
                      doc['sections'][2:])),
    ('section_repeated', 'example', '2', 'each known section appears exactly once',
     lambda doc: dict(doc, sections=doc['sections'][:2] + [doc['sections'][1]] +
                      doc['sections'][2:])),
    ('section_missing', 'example', '2', 'every known section is present',
     lambda doc: dict(doc, sections=doc['sections'][:5])),
    ('section_unused_bytes', 'example', '2', "a known section's payload is consumed exactly",
     on_bytes(lambda data, doc: patch(
         data[:section_offset(doc, 'CONSTS') + 4] + struct.pack('<I', 5) +
         data[section_offset(doc, 'CONSTS') + 8:section_offset(doc, 'CONSTS') + 12] + b'\0' +
         data[section_offset(doc, 'CONSTS') + 12:], 12, struct.pack('<I', len(data) + 1)))),
    # 3.1 strings
    ('string_bad_utf8', 'example', '3.1', 'strings are valid UTF-8',
     on_bytes(lambda data, doc: patch(data, data.index(b'mail.send'), b'\xc0\xa1'))),
    ('string_surrogate', 'example', '3.1', 'strings are valid UTF-8 (no surrogates)',
     on_bytes(lambda data, doc: patch(data, data.index(b'mail.send'), b'\xed\xa0\x80'))),
    ('string_count_too_big', 'example', '5', 'a count fits in the bytes left',
     on_bytes(lambda data, doc: patch(data, 24, struct.pack('<I', 1000)))),
    # 3.2 constants
    ('const_unknown_kind', 'checkout', '3.2', 'constant kinds are 0 to 5',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'CONSTS') + 12, b'\x06'))),
    ('const_bool_2', 'checkout', '3.2', 'a bool payload is 0 or 1',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'CONSTS') + 22, b'\x02'))),
    ('const_null_payload', 'checkout', '3.2', 'a null payload is all zero',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'CONSTS') + 12 + 9,
                                      b'\x00\x00\x00\x00\x00\x00\x00\x00\x01'))),
    ('const_string_padding', 'checkout', '3.2', 'a string constant is a u32 index, then 4 zero bytes',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'CONSTS') + 12 + 5, b'\x01'))),
    ('const_string_index', 'checkout', '3.2', 'a string constant names a string',
     change((('constants', 0, 'value'), 37))),
    # 3.3 types
    ('type_unknown_kind', 'checkout', '3.3', 'type kinds are 0 to 9',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'TYPES') + 12, b'\x0a'))),
    ('type_forward', 'checkout', '3.3', 'a type refers only to smaller type indices',
     change((('types', 6, 'elem'), 6))),
    ('type_field_forward', 'checkout', '3.3', 'a field type is a smaller type index',
     change((('types', 3, 'fields', 0, 'type'), 4))),
    ('type_field_flags', 'checkout', '3.3', 'field flags are 0 or 1',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'TYPES') + 12 + 2 + 17,
                                      b'\x02'))),
    ('type_field_names', 'checkout', '3.3', 'field names of one record are distinct',
     change((('types', 2, 'fields', 2, 'name'), 1))),
    ('type_record_name', 'checkout', '3.3', "a record's name is a string or NONE",
     change((('types', 5, 'name'), 1000))),
    # 3.4 tasks
    ('task_unknown_kind', 'checkout', '3.4', 'task kinds are 0 and 1',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'TASKS') + 12 + 4, b'\x02'))),
    ('task_names', 'checkout', '3.4', 'task names are distinct',
     change((('tasks', 1, 'name'), 0))),
    ('task_timeout_negative', 'checkout', '3.4', 'timeouts are at least 0',
     change((('tasks', 2, 'default_timeout_ms'), -1))),
    ('task_type', 'checkout', '3.4', "a task's contract is a type index",
     change((('tasks', 0, 'output'), 15))),
    # 3.5 code blocks
    ('code_no_position', 'checkout', '3.5', 'a code block has at least one position',
     change((('code', 3, 'positions'), []))),
    ('code_first_position', 'checkout', '3.5', 'the first position entry has offset 0',
     change((('code', 3, 'positions', 0, 'offset'), 1))),
    ('code_positions_order', 'checkout', '3.5', 'position offsets strictly increase',
     change((('code', 0, 'positions', 2), {'offset': 1, 'line': 20, 'column': 1}))),
    ('code_position_mid_instruction', 'checkout', '3.5', 'a position entry starts an instruction',
     change((('code', 0, 'positions', 1, 'offset'), 2))),
    ('code_position_outside', 'checkout', '3.5', 'a position entry lies inside the block',
     change((('code', 9, 'positions', 2, 'offset'), 40))),
    ('code_line_zero', 'checkout', '3.5', 'lines and columns are at least 1',
     change((('code', 0, 'positions', 0, 'line'), 0))),
    ('code_empty', 'checkout', '3.5', 'a code block holds at least `return`',
     set_code(3)),
    ('code_file', 'checkout', '3.5', "a code block's file is a string",
     change((('code', 3, 'file'), 37))),
    # 3.6 workflows and steps
    ('step_unknown_kind', 'checkout', '3.6', 'step kinds are 0 to 5',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'WORKFLOWS') + 12 + 40 + 4,
                                      b'\x06'))),
    ('step_task_range', 'checkout', '3.6', 'a task step names a task',
     set_step('charge', target=4)),
    ('step_task_kind', 'checkout', '3.6', 'a worker step names a worker task (kind 0)',
     set_step('charge', target=2)),
    ('step_workflow_range', 'checkout', '3.6', 'a workflow step names a workflow',
     set_step('pack', target=2)),
    ('step_signal', 'checkout', '3.6', "an await step's target is a string",
     set_step('approval', target=37)),
    ('step_sleep_target', 'checkout', '3.6', 'a sleep step has no target',
     set_step('cool_off', target=0)),
    ('step_for_without_var', 'checkout', '3.6', '`for` code exactly when a `for` variable',
     set_step('pack', **{'for': None})),
    ('step_value_on_task', 'checkout', '3.6', 'a task step has no value code',
     lambda doc: set_step('charge', value=step_of(doc, 0, 'cool_off')['value'])(
         set_step('cool_off', value=None)(doc))),
    ('step_sleep_without_value', 'checkout', '3.6', 'a sleep step has its value code',
     lambda doc: set_step('total_cents', value=step_of(doc, 0, 'cool_off')['value'])(
         set_step('cool_off', value=None)(doc))),
    ('step_retry_on_sleep', 'checkout', '3.6', 'a step that is no task makes one attempt',
     lambda doc: set_step('cool_off', policy=dict(step_of(doc, 0, 'cool_off')['policy'],
                                                   attempts=3))(doc)),
    ('step_timeout_on_compute', 'checkout', '3.6', 'a compute step has no timeout',
     set_step('total_cents', timeout_ms=1000)),
    ('step_queue_timeout_on_await', 'checkout', '3.6', 'an await step has no queue timeout',
     set_step('approval', queue_timeout_ms=1000)),
    ('step_with_on_sleep', 'checkout', '3.6', 'a sleep step has no `with`',
     lambda doc: set_step('cool_off', **{'with': step_of(doc, 0, 'charge')['with']})(
         set_step('charge', **{'with': None})(doc))),
    ('step_compensate_on_workflow', 'checkout', '3.6', 'a workflow step has no compensate block',
     lambda doc: set_step('pack', compensate=copy.deepcopy(dict(
         step_of(doc, 0, 'charge')['compensate'], **{'with': None})))(doc)),
    ('step_names', 'checkout', '3.6', 'step names of one workflow are distinct',
     set_step('cool_off', name=30)),
    ('workflow_names', 'checkout', '3.6', 'workflow names are distinct',
     change((('workflows', 1, 'name'), 7))),
    ('workflow_type', 'checkout', '3.6', "a workflow's contract is a type index",
     change((('workflows', 0, 'input'), 15))),
    ('code_used_twice', 'checkout', '3.6', 'each code block is used exactly once',
     set_step('total_cents', value=7)),
    ('code_unused', 'checkout', '3.6', 'each code block is used exactly once',
     set_step('notify', when=None)),
    ('code_index', 'checkout', '3.6', 'a code index names a code block',
     set_step('notify', when=11)),
    ('attempts_zero', 'checkout', '3.6', 'attempts are 1 to 1000',
     lambda doc: set_step('charge', policy=dict(step_of(doc, 0, 'charge')['policy'],
                                                attempts=0))(doc)),
    ('attempts_1001', 'checkout', '3.6', 'attempts are 1 to 1000',
     lambda doc: set_step('charge', policy=dict(step_of(doc, 0, 'charge')['policy'],
                                                attempts=1001))(doc)),
    ('backoff_unknown', 'checkout', '3.6', 'backoff is 0 or 1',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'WORKFLOWS') + 12 + 40 + 41 + 4,
                                      b'\x02'))),
    ('max_delay_below_initial', 'checkout', '3.6', 'max_delay_ms >= initial_delay_ms',
     lambda doc: set_step('charge', policy=dict(step_of(doc, 0, 'charge')['policy'],
                                                max_delay_ms=499))(doc)),
    ('timeout_negative', 'checkout', '3.6', 'timeouts are at least 0',
     set_step('charge', timeout_ms=-5)),
    ('non_retryable_string', 'checkout', '3.6', 'non_retryable codes are strings',
     lambda doc: set_step('charge', policy=dict(step_of(doc, 0, 'charge')['policy'],
                                                non_retryable=[14, 99]))(doc)),
    ('dependency_not_earlier', 'checkout', '3.6', 'dependencies are earlier steps',
     set_step('notify', dependencies=[1])),
    ('dependencies_order', 'checkout', '3.6', 'dependencies strictly increase',
     lambda doc: set_step('total_cents', dependencies=[1, 0])(doc)),
    ('has_compensate_2', 'checkout', '3.6', 'has_compensate is 0 or 1',
     on_bytes(lambda data, doc: patch(data, data.index(struct.pack('<IB', 0, 1) +
                                                       struct.pack('<I', 1)) + 4, b'\x02'))),
    ('step_reads_later_step', 'checkout', '6.7', '`step s` in a step\'s code needs s < its index',
     lambda doc: code_block(doc, 3, [('step', 1), ('return',)], 41, 10)),
    ('compensate_reads_later_step', 'checkout', '6.7',
     '`step s` in compensate code needs s <= the step\'s index',
     lambda doc: code_block(doc, 2, [('step', 1), ('return',)], 33, 25)),
    ('item_outside_for', 'checkout', '6.7', '`item` only in the code of a step with `for`',
     lambda doc: code_block(doc, 3, [('item',), ('return',)], 41, 10)),
    ('item_in_for_code', 'checkout', '6.7', '`item` not in the `for` code itself',
     lambda doc: code_block(doc, 5, [('item',), ('return',)], 47, 17)),
    ('return_reads_missing_step', 'checkout', '6.7', '`step s` in `return` code needs s < step_count',
     lambda doc: code_block(doc, 9, [('step', 6), ('return',)], 56, 23)),
    # 4 and 6.5: code
    ('op_unknown', 'checkout', '6.5', 'every opcode is known',
     on_bytes(lambda data, doc: patch(data, data.index(bytes([0x02, 0x06, 0x0b])), b'\xee'))),
    ('op_truncated', 'checkout', '6.5', 'every instruction is complete',
     set_code(3, ('input',), ('field',))),
    ('const_range', 'checkout', '6.5', 'a constant index names a constant',
     set_code(3, ('const', 6), ('return',))),
    ('field_string', 'checkout', '6.5', 'a field name is a string',
     set_code(3, ('input',), ('field', 37), ('return',))),
    ('field_opt_string', 'checkout', '6.5', 'a field name is a string',
     set_code(3, ('input',), ('field_opt', 37), ('return',))),
    ('record_names', 'checkout', '6.5', 'the names of a `record` are distinct',
     set_code(3, ('input',), ('input',), ('record', 2, 1, 1), ('return',))),
    ('record_string', 'checkout', '6.5', 'the names of a `record` are strings',
     set_code(3, ('input',), ('record', 1, 37), ('return',))),
    ('record_count', 'checkout', '6.5', 'a `record` has at most 65535 fields',
     set_code(3, ('input',), ('record', 65536), ('return',))),
    ('list_count', 'checkout', '6.5', 'a `list` has at most 65535 elements',
     set_code(3, ('input',), ('list', 65536), ('return',))),
    ('call_unknown', 'checkout', '6.5', 'a function index names a function',
     set_code(3, ('input',), ('call', 5, 1), ('return',))),
    ('call_arity', 'checkout', '6.5', "`call`'s argc equals the function's arity",
     set_code(3, ('input',), ('call', 4, 1), ('return',))),
    ('jump_backward', 'checkout', '6.5', 'jumps go forward',
     set_code(3, ('input',), ('jump_if_true', 0), ('input',), ('return',))),
    ('jump_outside', 'checkout', '6.5', 'jumps stay inside the block',
     set_code(3, ('input',), ('jump_if_true', 100), ('input',), ('return',))),
    ('jump_to_end', 'checkout', '6.5', 'a jump target is an instruction (not the end)',
     set_code(3, ('input',), ('jump_if_true', 8), ('input',), ('return',))),
    ('jump_into_instruction', 'checkout', '6.5', 'a jump target starts an instruction',
     set_code(3, ('input',), ('jump_if_true', 8), ('input',), ('field', 11), ('return',))),
    ('jump_into_own_operand', 'checkout', '6.5', "a jump target is not inside the jump's own operand",
     set_code(3, ('input',), ('jump_if_true', 3), ('input',), ('return',))),
    ('unreachable', 'checkout', '6.5', 'no instruction is unreachable',
     set_code(3, ('input',), ('jump', 7), ('input',), ('return',))),
    ('stack_underflow', 'checkout', '6.5', 'the stack never goes below what an instruction pops',
     set_code(3, ('input',), ('add',), ('return',))),
    ('stack_paths_differ', 'checkout', '6.5', 'the stack depth is equal on every path',
     set_code(3, ('input',), ('jump_if_true', 8), ('input',), ('input',), ('return',))),
    ('stack_at_return', 'checkout', '6.5', 'the stack holds exactly 1 value at `return`',
     set_code(3, ('input',), ('input',), ('return',))),
    ('stack_too_deep', 'checkout', '6.5', 'the operand stack stays within 4096',
     lambda doc: code_block(doc, 3, [('input',)] * 4097 + [('list', 4097), ('return',)],
                            41, 10)),
    ('no_return', 'checkout', '6.5', '`return` is the last instruction',
     set_code(3, ('input',))),
    ('code_after_return', 'checkout', '6.5', 'nothing follows `return`',
     set_code(3, ('input',), ('return',), ('input',))),
    # what docs/bytecode.md settles beyond the layout of its sections: positions from 1,
    # optional fields, default policies, names distinct by their text, dependencies
    ('position_zero_step', 'checkout', '1', 'lines and columns are at least 1 (a step)',
     set_step('pack', line=0)),
    ('position_zero_workflow', 'checkout', '1', 'lines and columns are at least 1 (a workflow)',
     change((('workflows', 1, 'column'), 0))),
    ('position_zero_compensate', 'checkout', '1',
     'lines and columns are at least 1 (a compensate block)',
     lambda doc: step_of(doc, 0, 'charge')['compensate'].update(line=0) or doc),
    ('optional_field_not_null', 'checkout', '3.3',
     "an optional field's type accepts null (any, null or optional)",
     change((('types', 2, 'fields', 1, 'optional'), True))),
    ('optional_type_required', 'checkout', '3.3', 'a field of an optional type is optional',
     change((('types', 9, 'fields', 3, 'optional'), False))),
    ('field_names_by_text', 'checkout', '3.3',
     'field names are distinct by their text, whatever their string indices',
     lambda doc: change((('types', 2, 'fields', 2, 'name'), add_string(doc, 'order_id')))(doc)),
    ('worker_default_timeout', 'checkout', '3.4', 'a worker task has no default timeout',
     change((('tasks', 0, 'default_timeout_ms'), 5000))),
    ('default_policy_sleep', 'checkout', '3.6',
     'a step that cannot retry carries exactly the default policy',
     lambda doc: set_step('cool_off', policy=dict(step_of(doc, 0, 'cool_off')['policy'],
                                                   initial_delay_ms=0))(doc)),
    ('default_policy_workflow', 'checkout', '3.6',
     'a step that cannot retry carries exactly the default policy',
     lambda doc: set_step('pack', policy=dict(step_of(doc, 0, 'pack')['policy'],
                                               backoff='exponential'))(doc)),
    ('step_names_by_text', 'checkout', '3.6',
     'step names are distinct by their text, whatever their string indices',
     lambda doc: set_step('cool_off', name=add_string(doc, 'approval'))(doc)),
    ('workflow_names_by_text', 'checkout', '3.6',
     'workflow names are distinct by their text, whatever their string indices',
     lambda doc: change((('workflows', 1, 'name'), add_string(doc, 'checkout')))(doc)),
    ('task_names_by_text', 'checkout', '3.4',
     'task names are distinct by their text, whatever their string indices',
     lambda doc: change((('tasks', 3, 'name'), add_string(doc, 'payments.charge')))(doc)),
    ('record_names_by_text', 'checkout', '6.5',
     'the names of a `record` are distinct by their text',
     lambda doc: code_block(doc, 3, [('input',), ('input',),
                                     ('record', 2, 1, add_string(doc, 'order_id')),
                                     ('return',)], 41, 10)),
    ('dependency_not_read', 'checkout', '3.6',
     "a step's dependencies are exactly the earlier steps its code reads (one too many)",
     set_step('total_cents', dependencies=[0])),
    ('dependency_missing', 'checkout', '3.6',
     "a step's dependencies are exactly the earlier steps its code reads (one missing)",
     set_step('notify', dependencies=[])),
    ('steps_do_not_fit', 'example', '5',
     'a count fits in the bytes left: a step takes at least 87 bytes',
     on_bytes(lambda data, doc: patch(data, len(data) - 87 - 4, struct.pack('<I', 2)))),
    ('tasks_do_not_fit', 'example', '5',
     'a count fits in the bytes left: a task takes at least 21 bytes',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'TASKS') + 8,
                                      struct.pack('<I', 2)))),
    ('code_blocks_do_not_fit', 'example', '5',
     'a count fits in the bytes left: a code block takes at least 21 bytes',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'CODE') + 8,
                                      struct.pack('<I', 4)))),
    ('workflows_do_not_fit', 'example', '5',
     'a count fits in the bytes left: a workflow takes at least 40 bytes',
     on_bytes(lambda data, doc: patch(data, section_offset(doc, 'WORKFLOWS') + 8,
                                      struct.pack('<I', 5)))),
]


# ---- running the tools ----

class Kit:
    def __init__(self, args, tmp):
        self.args = args
        self.tmp = tmp
        self.problems = []
        self.expected = {}     # kit path (relative to KIT) -> bytes it must hold
        self.schema = validate_json.load_validator(SCHEMA)

    def run(self, cmd, cwd=None):
        return subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=300)

    def build(self, source, name):
        out = os.path.join(self.tmp, name + '.orbc')
        cwd, base = os.path.split(source)
        p = self.run([self.args.orbitc, 'build', base, '-o', out], cwd=cwd)
        if p.returncode != 0:
            self.problems.append('orbitc build %s failed:\n%s'
                                 % (os.path.relpath(source, ROOT), p.stderr.decode()))
            return None
        with open(out, 'rb') as f:
            return f.read()

    def dump(self, data, name):
        """The JSON dump of `data` (text), checked against the schema and the encoder."""
        path = os.path.join(self.tmp, name + '.dump.orbc')
        with open(path, 'wb') as f:
            f.write(data)
        text, problems = orbc_json.check_dump(self.args.orbitc, path, self.schema)
        self.problems += ['%s: %s' % (name, p) for p in problems]
        return text

    def loader_error(self, data, name):
        """The reference loader's message for `data`, or None when it loads."""
        path = os.path.join(self.tmp, name + '.orbc')
        with open(path, 'wb') as f:
            f.write(data)
        p = self.run([self.args.orbitc, 'dis', path])
        err = p.stderr.decode('utf-8', 'replace')
        marker = 'is not a valid bytecode file: '
        if p.returncode != 1 or marker not in err:
            return None
        return err.split(marker, 1)[1].strip()

    def expect(self, relpath, content):
        if isinstance(content, str):
            content = content.encode('utf-8')
        self.expected[relpath] = content

    # ---- the three parts ----

    def valid(self):
        docs = {}
        folder = os.path.join(KIT, 'valid')
        for entry in sorted(os.listdir(folder)):
            if not entry.endswith('.orbit'):
                continue
            name = entry[:-len('.orbit')]
            self.expect('valid/' + entry, read_bytes(os.path.join(folder, entry)))
            data = self.build(os.path.join(folder, entry), name)
            if data is None:
                continue
            text = self.dump(data, name)
            if text is None:
                continue
            self.expect('valid/%s.orbc' % name, data)
            self.expect('valid/%s.json' % name, text)
            docs[name] = json.loads(text)
        for name, base, change in GENERATED_VALID:
            data = orbc_json.encode(change(copy.deepcopy(docs[base])))
            if self.loader_error(data, name) is not None:
                self.problems.append('generated valid file %s does not load: %s'
                                     % (name, self.loader_error(data, name)))
            text = self.dump(data, name)
            self.expect('valid/%s.orbc' % name, data)
            if text is not None:
                self.expect('valid/%s.json' % name, text)
        return docs

    def malformed(self, docs):
        cases = []
        for name, base, section, breaks, change in MALFORMED:
            doc = copy.deepcopy(docs[base])
            if getattr(change, 'on_bytes', False):
                data = change(orbc_json.encode(doc), doc)
            else:
                data = orbc_json.encode(change(doc))
            error = self.loader_error(data, name)
            if error is None:
                self.problems.append('malformed/%s.orbc is not rejected by the loader' % name)
                continue
            self.expect('malformed/%s.orbc' % name, data)
            cases.append({'file': name + '.orbc', 'section': section, 'breaks': breaks,
                          'error': error})
        self.expect('malformed/cases.json', json.dumps(cases, indent=2, ensure_ascii=False) + '\n')

    def runtime(self):
        folder = os.path.join(KIT, 'runtime')
        for entry in sorted(os.listdir(folder)):
            if not entry.endswith('.orbit'):
                continue
            name = entry[:-len('.orbit')]
            base = os.path.join(folder, name)
            data = self.build(base + '.orbit', name)
            if data is None:
                continue
            self.dump(data, 'runtime.' + name)
            orbc = os.path.join(self.tmp, name + '.orbc')
            extra = []
            for suffix in ('.orbit', '.scenario.json', '.args'):
                if os.path.exists(base + suffix):
                    self.expect('runtime/' + name + suffix, read_bytes(base + suffix))
            if os.path.exists(base + '.args'):
                extra = shlex.split(read_bytes(base + '.args').decode())
            p = self.run([self.args.orbit_run, orbc, '--scenario', name + '.scenario.json']
                         + extra, cwd=folder)
            if p.returncode not in (0, 1):
                self.problems.append('orbit-run %s: exit status %d:\n%s'
                                     % (name, p.returncode, p.stderr.decode()))
                continue
            self.expect('runtime/%s.orbc' % name, data)
            self.expect('runtime/%s.history' % name, p.stdout)
            self.check_golden_links(name)

    def check_golden_links(self, name):
        """tests/golden/run/NAME.* of a kit case are links to the kit's files, not copies."""
        for suffix in RUNTIME_SHARED:
            kit_file = os.path.join(KIT, 'runtime', name + suffix)
            link = os.path.join(GOLDEN_RUN, name + suffix)
            if not os.path.exists(kit_file) and not os.path.lexists(link):
                continue
            if not (os.path.islink(link) and os.readlink(link) == golden_link(name + suffix)):
                self.problems.append('tests/golden/run/%s is not a symbolic link to %s (the kit '
                                     'holds the one copy)' % (name + suffix, golden_link(name + suffix)))

    def adopt_golden_cases(self, move):
        """A runtime case added to tests/golden/run as files belongs to the kit: with `move`, its
        files go to tests/conformance/runtime/ and tests/golden/run keeps links; else it is a problem."""
        for entry in sorted(os.listdir(GOLDEN_RUN)):
            path = os.path.join(GOLDEN_RUN, entry)
            if (not entry.endswith('.orbit') or entry.startswith(RUNTIME_EXCLUDED)
                    or os.path.islink(path)):
                continue
            name = entry[:-len('.orbit')]
            if not move:
                self.problems.append('tests/golden/run/%s is a runtime case of the kit: '
                                     '--update moves it to tests/conformance/runtime/' % entry)
                continue
            for suffix in RUNTIME_SHARED:
                source = os.path.join(GOLDEN_RUN, name + suffix)
                if os.path.exists(source) and not os.path.islink(source):
                    shutil.move(source, os.path.join(KIT, 'runtime', name + suffix))
                    os.symlink(golden_link(name + suffix), source)
            print('tests/conformance/: moved tests/golden/run/%s.* into the kit, links left' % name)

    # ---- comparing with the kit ----

    def kit_files(self):
        found = set()
        for part in ('valid', 'malformed', 'runtime'):
            folder = os.path.join(KIT, part)
            if os.path.isdir(folder):
                found.update(part + '/' + f for f in os.listdir(folder))
        return found

    def check(self):
        for relpath in sorted(self.expected):
            path = os.path.join(KIT, relpath)
            if not os.path.exists(path):
                self.problems.append('missing tests/conformance/%s' % relpath)
                continue
            actual = read_bytes(path)
            if actual != self.expected[relpath]:
                self.problems.append('tests/conformance/%s differs from what the build gives%s'
                                     % (relpath, text_diff(actual, self.expected[relpath])))
        for relpath in sorted(self.kit_files() - set(self.expected)):
            self.problems.append('tests/conformance/%s is left over (no case makes it)' % relpath)

    def update(self):
        written = 0
        for relpath, content in sorted(self.expected.items()):
            path = os.path.join(KIT, relpath)
            if os.path.exists(path) and read_bytes(path) == content:
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'wb') as f:
                f.write(content)
            written += 1
        removed = 0
        for relpath in sorted(self.kit_files() - set(self.expected)):
            os.remove(os.path.join(KIT, relpath))
            removed += 1
        print('tests/conformance/: %d files written, %d removed; read `git diff tests/conformance/` '
              'before committing' % (written, removed))


def golden_link(filename):
    """What tests/golden/run/FILENAME holds: a relative link to the kit's file."""
    return os.path.join('..', '..', 'conformance', 'runtime', filename)


def read_bytes(path):
    with open(path, 'rb') as f:
        return f.read()


def text_diff(old, new):
    try:
        a, b = old.decode('utf-8'), new.decode('utf-8')
    except UnicodeDecodeError:
        return ' (binary)'
    lines = list(difflib.unified_diff(a.splitlines(True), b.splitlines(True), 'kit', 'build',
                                      n=1))
    return ':\n' + ''.join(lines[:40])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--orbitc', required=True)
    ap.add_argument('--orbit-run', required=True)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument('--check', action='store_true')
    mode.add_argument('--update', action='store_true')
    args = ap.parse_args()
    args.orbitc = os.path.abspath(args.orbitc)
    args.orbit_run = os.path.abspath(args.orbit_run)
    with tempfile.TemporaryDirectory() as tmp:
        kit = Kit(args, tmp)
        docs = kit.valid()
        kit.malformed(docs)
        kit.adopt_golden_cases(move=args.update)
        kit.runtime()
        if kit.problems:
            for p in kit.problems:
                print(p)
            print('%d problems' % len(kit.problems))
            return 1
        if args.update:
            kit.update()
            return 0
        kit.check()
    for p in kit.problems:
        print(p)
    def count(part, suffix):
        return sum(1 for r in kit.expected if r.startswith(part + '/') and r.endswith(suffix))
    print('conformance kit: %d valid files, %d malformed files, %d runtime scenarios; '
          '%d problems' % (count('valid', '.orbc'), count('malformed', '.orbc'),
                           count('runtime', '.history'), len(kit.problems)))
    return 1 if kit.problems else 0


if __name__ == '__main__':
    sys.exit(main())
