#!/usr/bin/env python3
"""Validates JSON output of orbitc against a JSON Schema.

    validate_json.py SCHEMA [FILE... | -]               JSON Lines (`check --format=json`)
    validate_json.py --document SCHEMA [FILE... | -]    one document per file (`dis --format json`)

Each line of each FILE (standard input for `-` or when no FILE is given) must be one JSON
object that the schema accepts, with no trailing spaces; with --document, each FILE is one
JSON document. Besides the schema, the keys must come in the order the schema's
"required" list gives (the documented fixed order). Prints the first failure as
FILE:LINE: reason (FILE: reason for a document) and exits 1; exits 0 when all pass, 2
when the schema or a file cannot be read.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    sys.exit('validate_json.py: python3-jsonschema is not installed')


def key_order_problem(value, schema, defs, where):
    """The first object whose keys are not in the order of its schema's "required"."""
    if isinstance(value, dict):
        for option in schema.get('oneOf', []):   # the alternative that describes an object
            if '$ref' in option:
                schema = option
    if '$ref' in schema:
        schema = defs[schema['$ref'].rsplit('/', 1)[-1]]
    if isinstance(value, dict):
        required = schema.get('required')
        if required and list(value.keys()) != required:
            return '%s: keys %s, expected the order %s' % (where or 'top level',
                                                           list(value.keys()), required)
        for key, item in value.items():
            sub = schema.get('properties', {}).get(key)
            if sub:
                problem = key_order_problem(item, sub, defs, where + '.' + key)
                if problem:
                    return problem
    elif isinstance(value, list) and isinstance(schema.get('items'), dict):
        for i, item in enumerate(value):
            problem = key_order_problem(item, schema['items'], defs, '%s[%d]' % (where, i))
            if problem:
                return problem
    return None


def line_problem(text, validator, schema):
    if text != text.rstrip(' \t'):
        return 'trailing whitespace'
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        return 'not JSON: %s' % error
    return value_problem(value, validator, schema)


def value_problem(value, validator, schema):
    """Why `value` does not match `schema` (or its key order), or None."""
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is not None:
        path = '/'.join(str(p) for p in error.absolute_path) or '(top level)'
        return 'schema: at %s: %s' % (path, error.message)
    return key_order_problem(value, schema, schema.get('$defs', {}), '')


def check_stream(name, stream, validator, schema):
    count = 0
    for number, raw in enumerate(stream, 1):
        try:
            text = raw.decode('utf-8')
        except UnicodeDecodeError as error:
            print('%s:%d: invalid UTF-8: %s' % (name, number, error))
            return False
        if not text.endswith('\n'):
            print('%s:%d: line does not end with a newline' % (name, number))
            return False
        problem = line_problem(text[:-1], validator, schema)
        if problem:
            print('%s:%d: %s' % (name, number, problem))
            return False
        count += 1
    return True


def check_document(name, stream, validator, schema):
    try:
        value = json.loads(stream.read().decode('utf-8'))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        print('%s: not JSON: %s' % (name, error))
        return False
    problem = value_problem(value, validator, schema)
    if problem:
        print('%s: %s' % (name, problem))
        return False
    return True


def load_validator(path):
    """The schema at `path` and a validator for it (raises OSError, ValueError, SchemaError)."""
    with open(path, encoding='utf-8') as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return schema, validator_class(schema)


def main():
    args = sys.argv[1:]
    check = check_stream
    if args[:1] == ['--document']:
        check = check_document
        args = args[1:]
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        schema, validator = load_validator(args[0])
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as error:
        print('validate_json.py: bad schema %s: %s' % (args[0], error), file=sys.stderr)
        return 2
    names = args[1:] or ['-']
    for name in names:
        if name == '-':
            ok = check('<stdin>', sys.stdin.buffer, validator, schema)
        else:
            try:
                with open(name, 'rb') as f:
                    ok = check(name, f, validator, schema)
            except OSError as error:
                print('validate_json.py: %s' % error, file=sys.stderr)
                return 2
        if not ok:
            return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
