/*
Copyright The Stencil Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package starlark

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"stencil.dev/stencil/pkg/transform"
)

// libraryBuiltins lists every built-in function and method a script can reach, from the
// library itself: the universe, and the methods of a value of every type a script can make
// (including ctx). A built-in a new version adds is in this list, without a guard.
func libraryBuiltins(t *testing.T) []string {
	t.Helper()
	var names []string
	for name, v := range starlark.Universe {
		switch v.(type) {
		case *starlark.Builtin:
			names = append(names, name)
		case starlark.NoneType, starlark.Bool:
		default:
			t.Errorf("the universe holds %s, a %s, which no guard knows", name, v.Type())
		}
	}
	values := evalGuarded(t, `r = [None, True, 1, 1 << 70, 1.5, "s", b"b", [1], (1,), {"k": 1}, set([1]), range(2),
	len, "s".upper, lambda: 0, "s".elems(), "s".codepoints(), "s".elem_ords(), "s".codepoint_ords(), b"b".elems(), ctx]`)
	for v := range values.(*starlark.List).Elements() {
		recv, ok := v.(starlark.HasAttrs)
		if !ok {
			continue
		}
		for _, name := range recv.AttrNames() {
			attr, err := recv.Attr(name)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := attr.(*starlark.Builtin); ok {
				names = append(names, v.Type()+"."+name)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// TestStarlarkEveryBuiltinIsGuarded: every built-in the library gives a script has a guard,
// and a sample that the guarded interpreter runs as the plain one does.
func TestStarlarkEveryBuiltinIsGuarded(t *testing.T) {
	library := libraryBuiltins(t)
	if len(library) < 90 {
		t.Fatalf("found only %d built-ins: the list is incomplete", len(library))
	}
	for _, name := range library {
		if _, ok := builtinSpecs[name]; !ok {
			t.Errorf("%s has no guard in builtinSpecs: a script could call it outside its budget (it is refused until it has one)", name)
		}
		if _, ok := builtinSamples[name]; !ok {
			t.Errorf("%s has no sample in builtinSamples", name)
		}
	}
	for name := range builtinSpecs {
		if !slices.Contains(library, name) {
			t.Errorf("builtinSpecs guards %s, which the library does not have", name)
		}
	}
	// The names a script sees: the universe, ctx, and the guards, which it cannot name.
	for name := range (&starlarkRun{}).predeclared() {
		if !strings.HasPrefix(name, guardPrefix) {
			t.Errorf("predeclared %s is neither ctx nor a guard", name)
		}
	}
	// A built-in without a guard is refused, not run unguarded.
	spec := builtinSpecs["len"]
	delete(builtinSpecs, "len")
	defer func() { builtinSpecs["len"] = spec }()
	if _, err := runGuarded("r = len('a')"); err == nil || !strings.Contains(err.Error(), "len is not available to Stencil's Starlark transformers: no guard bounds it") {
		t.Fatalf("a built-in without a guard: %v", err)
	}
}

// TestStarlarkGuardsKeepSemantics runs every sample, and every rewritten operation, guarded
// and plain: same value, or same error.
func TestStarlarkGuardsKeepSemantics(t *testing.T) {
	for name, sources := range builtinSamples {
		for _, source := range sources {
			compareRuns(t, name, source)
		}
	}
	for _, source := range operationSamples {
		compareRuns(t, "operation", source)
	}
}

func compareRuns(t *testing.T, name, source string) {
	t.Helper()
	guarded, gerr := runGuarded(source)
	plain, perr := runPlain(source)
	if (gerr == nil) != (perr == nil) {
		t.Errorf("%s: %q: guarded %v (%v), plain %v (%v)", name, source, guarded, gerr, plain, perr)
		return
	}
	if gerr != nil {
		if msg(gerr) != msg(perr) {
			t.Errorf("%s: %q: guarded error %q, plain %q", name, source, msg(gerr), msg(perr))
		}
		return
	}
	if guarded.String() != plain.String() {
		t.Errorf("%s: %q: guarded %s, plain %s", name, source, guarded, plain)
	}
}

func msg(err error) string {
	var e *starlark.EvalError
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// sampleCtx is a ctx as scripts see it.
func sampleCtx() starlark.StringDict {
	return starlark.StringDict{"ctx": toStarlark(map[string]any{"resource_list": map[string]any{"items": []any{}}}, new(int))}
}

// runGuarded runs source rewritten, with its guards, under the default budget; r is its value.
func runGuarded(source string) (starlark.Value, error) {
	v, _, err := runGuardedBudget(source, transform.DefaultLimits().StarlarkMemoryBytes)
	return v, err
}

// runGuardedBudget runs source under a memory budget and returns its run too.
func runGuardedBudget(source string, budget int) (starlark.Value, *starlarkRun, error) {
	prog, err := compileStarlark("sample", source)
	if err != nil {
		return nil, nil, err
	}
	thread := &starlark.Thread{Print: func(*starlark.Thread, string) {}}
	run := &starlarkRun{thread: thread, limit: budget, budget: budget, maxSteps: 1 << 40}
	thread.SetLocal(runKey, run)
	thread.SetMaxExecutionSteps(run.maxSteps)
	env := run.predeclared()
	env["ctx"] = sampleCtx()["ctx"]
	globals, err := prog.Init(thread, env)
	return globals["r"], run, err
}

// runPlain runs source as go.starlark.net would, without guards.
func runPlain(source string) (starlark.Value, error) {
	thread := &starlark.Thread{Print: func(*starlark.Thread, string) {}}
	globals, err := starlark.ExecFileOptions(starlarkOptions, thread, "sample.star", source, sampleCtx())
	return globals["r"], err
}

func evalGuarded(t *testing.T, source string) starlark.Value {
	t.Helper()
	v, err := runGuarded(source)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// builtinSamples call every built-in, as scripts do, and as they get it wrong.
var builtinSamples = map[string][]string{
	"abs":       {"r = abs(-3), abs(-(1 << 70)), abs(-1.5)"},
	"all":       {"r = all([1, 2]), all(range(3)), all('ab'.elems())"},
	"any":       {"r = any([0, 1]), any(range(0)), any({})"},
	"bool":      {"r = bool(0), bool([1])"},
	"bytes":     {"r = bytes('abc'), bytes([65, 66]), bytes(range(65, 70)), bytes(b'x')", "r = bytes([300])"},
	"chr":       {"r = chr(65)"},
	"dict":      {"r = dict([('a', 1)], b=2), dict({'x': 1}), dict(zip(['a', 'b'], range(2))), dict()", "r = dict([1])", "r = dict([(1, 2, 3)])"},
	"dir":       {"r = dir([]), dir('')"},
	"enumerate": {"r = enumerate(['a', 'b'], 1), enumerate(range(3)), enumerate('ab'.elems())"},
	"fail":      {"fail('boom', 1, [2])"},
	"float":     {"r = float('1.5'), float(2)"},
	"getattr":   {"r = getattr('a', 'upper')(), getattr([], 'nope', 3)"},
	"hasattr":   {"r = hasattr([], 'append')"},
	"hash":      {"r = hash('abc'), hash(b'abc')"},
	"int":       {"r = int('42'), int('ff', 16), int(1.9), int('1' * 100)", "r = int('x')"},
	"len":       {"r = len('abc'), len(range(5))"},
	"list":      {"r = list('ab'.elems()), list(range(3)), list({'a': 1}), list(), list((1, 2))", "r = list(1)"},
	"max":       {"r = max([1, 3, 2]), max(1, 5), max(['a', 'bb'], key=len), max(range(4)), max('ab'.elems())", "r = max([])", "r = max([1, 'a'])"},
	"min":       {"r = min([1, 3, 2]), min(1, 5), min(['a', 'bb'], key=len), min(range(4))"},
	"ord":       {"r = ord('A')"},
	"print":     {"print('hi', [1], sep='-')\nr = 1"},
	"range":     {"r = range(1, 10, 2), list(range(3)), range(5)[1:3], 3 in range(5)"},
	"repr":      {"r = repr([1, 'a']), repr(range(3))"},
	"reversed":  {"r = reversed([1, 2, 3]), reversed(range(3)), reversed('ab'.elems())"},
	"set":       {"r = set([3, 1, 3]), set(range(3)), set(), set({'a': 1})", "r = set([[1]])"},
	"sorted":    {"r = sorted([3, 1, 2]), sorted(['bb', 'a'], key=len), sorted(range(3), reverse=True), sorted(iterable=[2, 1]), sorted({'b': 1, 'a': 2})", "r = sorted([1, 'a'])"},
	"str":       {"r = str(1), str([1, 'a']), str('s'), str(range(2))"},
	"tuple":     {"r = tuple([1, 2]), tuple(range(2)), tuple()"},
	"type":      {"r = type(1), type(range(1))"},
	"zip":       {"r = zip([1, 2], 'ab'.elems()), zip(range(3), [4, 5]), zip(), zip([1])", "r = zip(1)"},

	"bytes.elems": {"r = list(b'ab'.elems())"},

	"dict.clear":      {"d = {'a': 1}\nd.clear()\nr = d"},
	"dict.get":        {"r = {'a': 1}.get('a'), {}.get((1, 2), 3)", "r = {}.get([1])"},
	"dict.items":      {"r = {'a': 1, 'b': 2}.items()"},
	"dict.keys":       {"r = {'a': 1, 'b': 2}.keys()"},
	"dict.pop":        {"d = {'a': 1}\nr = d.pop('a'), d.pop('z', 0), d", "r = {}.pop('z')"},
	"dict.popitem":    {"d = {'a': 1, 'b': 2}\nr = d.popitem(), d"},
	"dict.setdefault": {"d = {}\nr = d.setdefault('a', [1]), d.setdefault('a', 2), d"},
	"dict.update":     {"d = {'a': 1}\nd.update({'b': 2}, c=3)\nd.update([('d', 4)])\nd.update(zip(['e'], range(1)))\nd.update(d)\nr = d", "d = {}\nd.update([1])"},
	"dict.values":     {"r = {'a': 1, 'b': 2}.values()"},

	"list.append": {"l = [1]\nl.append(2)\nl.append(l[:])\nr = l"},
	"list.clear":  {"l = [1]\nl.clear()\nr = l"},
	"list.extend": {"l = [1]\nl.extend([2])\nl.extend(range(3))\nl.extend(l)\nl.extend('ab'.elems())\nr = l", "l = []\nl.extend(1)"},
	"list.index":  {"r = [1, 2, 3].index(2), ['a', [1]].index([1]), [1, 2, 1].index(1, 1)", "r = [1].index(5)"},
	"list.insert": {"l = [1]\nl.insert(0, 0)\nl.insert(-1, 5)\nl.insert(9, 9)\nr = l"},
	"list.pop":    {"l = [1, 2, 3]\nr = l.pop(), l.pop(0), l", "r = [].pop()"},
	"list.remove": {"l = [1, 2, 1]\nl.remove(1)\nr = l", "r = [].remove(1)"},

	"set.add":                  {"s = set()\ns.add(1)\ns.add((1, 2))\nr = s"},
	"set.clear":                {"s = set([1])\ns.clear()\nr = s"},
	"set.difference":           {"r = set([1, 2, 3]).difference([2]), set([1, 2]).difference(range(2))"},
	"set.discard":              {"s = set([1, 2])\ns.discard(1)\ns.discard(5)\nr = s"},
	"set.intersection":         {"r = set([1, 2, 3]).intersection([3, 2, 7]), set([1]).intersection(range(3))"},
	"set.issubset":             {"r = set([1]).issubset([1, 2]), set([1, 5]).issubset(range(3))"},
	"set.issuperset":           {"r = set([1, 2]).issuperset([1]), set([1]).issuperset(range(3))"},
	"set.pop":                  {"s = set([1, 2])\nr = s.pop(), s"},
	"set.remove":               {"s = set([1, 2])\ns.remove(2)\nr = s", "set().remove(1)"},
	"set.symmetric_difference": {"r = set([1, 2]).symmetric_difference([2, 3]), set([1]).symmetric_difference(range(3))"},
	"set.union":                {"r = set([1]).union([2], range(3, 5)), set([1]).union(), set([1]).union({'a': 1})", "r = set([1]).union(1)"},
	"set.update":               {"s = set([1])\ns.update([2], range(3, 5))\nr = s"},

	"string.capitalize":     {"r = 'hello World'.capitalize()"},
	"string.codepoint_ords": {"r = list('aé'.codepoint_ords())"},
	"string.codepoints":     {"r = list('aé'.codepoints())"},
	"string.count":          {"r = 'banana'.count('a'), 'banana'.count('a', 2), 'ab'.count('')"},
	"string.elem_ords":      {"r = list('aé'.elem_ords())"},
	"string.elems":          {"r = list('aé'.elems())"},
	"string.endswith":       {"r = 'abc'.endswith('c'), 'abc'.endswith(('x', 'bc'))"},
	"string.find":           {"r = 'abc'.find('c'), 'abc'.find('z'), 'abcabc'.find('c', 3)"},
	"string.format":         {"r = '{} {x} {0!r}'.format(1, x=[2]), '{{}}'.format()", "r = '{'.format()"},
	"string.index":          {"r = 'abc'.index('b')", "r = 'abc'.index('z')"},
	"string.isalnum":        {"r = 'ab1'.isalnum(), ''.isalnum()"},
	"string.isalpha":        {"r = 'ab'.isalpha()"},
	"string.isdigit":        {"r = '12'.isdigit()"},
	"string.islower":        {"r = 'ab'.islower()"},
	"string.isspace":        {"r = ' '.isspace()"},
	"string.istitle":        {"r = 'Hello World'.istitle()"},
	"string.isupper":        {"r = 'AB'.isupper()"},
	"string.join":           {"r = ','.join(['a', 'b']), ''.join('ab'.elems()), '-'.join(('x', 'y')), ''.join([])", "r = ','.join(['a', 1])", "r = ','.join(1)"},
	"string.lower":          {"r = 'AbÉ'.lower()"},
	"string.lstrip":         {"r = '  a '.lstrip(), 'xxa'.lstrip('x')"},
	"string.partition":      {"r = 'a=b=c'.partition('='), 'abc'.partition('=')"},
	"string.removeprefix":   {"r = 'abc'.removeprefix('ab'), 'abc'.removeprefix('x')"},
	"string.removesuffix":   {"r = 'abc'.removesuffix('bc')"},
	"string.replace":        {"r = 'aaa'.replace('a', 'bb'), 'aaa'.replace('a', 'b', 2), 'ab'.replace('', '-'), 'aaa'.replace('aa', '')"},
	"string.rfind":          {"r = 'abcabc'.rfind('b')"},
	"string.rindex":         {"r = 'abcabc'.rindex('b')"},
	"string.rpartition":     {"r = 'a=b=c'.rpartition('=')"},
	"string.rsplit":         {"r = 'a b  c'.rsplit(), 'a,b,c'.rsplit(',', 1), ' a b '.rsplit(None, 1)", "r = 'a'.rsplit('')"},
	"string.rstrip":         {"r = ' a  '.rstrip()"},
	"string.split":          {"r = 'a b  c'.split(), 'a,b,c'.split(',', 1), 'a,,b'.split(','), ' a b '.split(None, 1)", "r = 'a'.split(1)"},
	"string.splitlines":     {"r = 'a\\nb\\n'.splitlines(), 'a\\nb'.splitlines(True), ''.splitlines()"},
	"string.startswith":     {"r = 'abc'.startswith('a')"},
	"string.strip":          {"r = ' a '.strip(), 'xax'.strip('x')"},
	"string.title":          {"r = 'hello world'.title()"},
	"string.upper":          {"r = 'abé'.upper()"},
}

// operationSamples exercise every operation the rewrite routes through a guard.
var operationSamples = []string{
	"r = 1 + 2, 'a' + 'b', [1] + [2], (1,) + (2,), 1 - 2, 2 * 3, 'ab' * 2, 3 * [1], 7 % 3, '%s-%d' % ('a', 1), 1 << 3, 5 | 2, 6 & 3, 6 ^ 3, 1.5 + 1",
	"r = set([1, 2]) | set([3]), set([1, 2]) & set([2]), set([1, 2]) - set([2]), set([1, 2]) ^ set([2, 3]), {'a': 1} | {'b': 2}",
	"r = 1 | 'a'",
	"r = set([1]) | [1]",
	"l = [1]\nl += [2]\nl += range(2)\nl += l\nl += 'ab'.elems()\nr = l",
	"l = []\nl += 1",
	"s = 'a'\ns += 'b'\nn = 1\nn <<= 2\nn *= 3\nn %= 5\nn -= 1\nn |= 8\nn &= 12\nn ^= 1\nr = s, n",
	"d = {'a': [1]}\nd['a'] += [2]\nd['b'] = 1\nd['b'] += 1\nl = [1, 2]\nl[0] = 5\nl[-1] += 1\nr = d, l",
	"l = [1]\nl[3] = 1",
	"d = {}\nd['z'] += 1",
	"t = (1, 2)\nt[0] = 1",
	"a = [1]\nb = [1]\nr = a == b, a != b, a < [2], [1, [2]] == [1, [2]], 'a' in ['a'], 'x' not in {'x': 1}, 1 in range(3), a in [b], (1, 2) in {(1, 2): 1}",
	"r = [1] < 'a'",
	"s = 'abcdef'\nl = [1, 2, 3, 4]\nr = s[1:3], s[::2], s[::-1], l[1:], l[::2], b'abc'[1:]",
	"r = [x * 2 for x in range(3) if x], {k: v for k, v in [('a', 1)]}, [(a, b) for a in range(2) for b in 'xy'.elems()]",
	"def f(*a, **k):\n    return len(a), sorted(k.items())\nr = f(*[1, 2], **{'x': 1}), f(*range(3))",
	"r = len(*[1])",
	"f = lambda x, y=[1]: x + len(y)\ndef g():\n    def h():\n        return 1\n    return h()\nr = f(1), g()",
	"d = {}\nk = [0]\nfor d['a'], k[0] in [(1, 2)]:\n    pass\nx, d['b'] = 1, 2\nr = d, k",
	"x = {'a': 1}\nr = x['a'], x.get('a'), [1, 2][-1], 'abc'[1], {(1, 2): 3}[(1, 2)]",
	"r = {}['nope']",
	"r = [1][5]",
	"m = 'abc'.upper\nr = m()",
	"r = {'a': 1, 'a': 2}",
}
