package i18n

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// translators are the functions that take a message key, by function and
// parameter index. Every other place a key travels through is found from
// these by following the code (see keyFinder).
var translators = []string{
	"i18n.T#1",         // i18n.T(ctx, key, args...)
	"i18n.Translate#1", // i18n.Translate(lang, key, args...)
	"kanri.E#1",        // kanri.E(code, key, args...): a domain error's message
	"kanri.Wrap#1",     // kanri.Wrap(code, key, err)
	"kanri.Invalid#0",  // kanri.Invalid(fields): field → message key
}

// TestEveryKeyInTheCodeIsInTheCatalog reads the application's Go code (the
// views' templ files through the Go code templ generates from them) and
// fails for every message key the code can hand to the translator that the
// catalog lacks, so that no page shows a raw key. No list of key prefixes:
// the keys are found by following the values that reach a translator.
func TestEveryKeyInTheCodeIsInTheCatalog(t *testing.T) {
	kf := parseCode(t, filepath.Join("..", ".."))
	kf.find()
	for _, u := range kf.uses {
		switch {
		case u.prefix && !hasPrefix(u.key):
			t.Errorf("%s: no message key in the catalog starts with %q", u.pos, u.key)
		case !u.prefix && !Has(u.key):
			t.Errorf("%s: message key %q is not in the catalog", u.pos, u.key)
		}
	}
	// The finder must keep finding what it found when it was written:
	// hundreds of keys, in every shape it follows.
	shapes := map[string]int{}
	for _, u := range kf.uses {
		shapes[u.via]++
	}
	t.Logf("%d message keys found in the code: %v", len(kf.uses), shapes)
	if got, want := len(kf.uses), 500; got < want {
		t.Errorf("found %d message keys in the code, want at least %d: does the finder still see every shape?", got, want)
	}
	for _, via := range []string{"argument", "field", "map value", "return", "variable", "concatenation"} {
		if shapes[via] == 0 {
			t.Errorf("found no key passed as a %s: does the finder still see that shape?", via)
		}
	}
}

// TestKeyFinderFindsEveryShape runs the finder on small programs, one per
// way a key reaches a translator, with a key the catalog lacks.
func TestKeyFinderFindsEveryShape(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"argument", `func f(ctx context.Context) string { return i18n.T(ctx, "new.key") }`, []string{"new.key"}},
		{"domain error", `func f() error { return kanri.E(kanri.ECONFLICT, "new.conflict") }`, []string{"new.conflict"}},
		{"wrapped error", `func f(err error) error { return kanri.Wrap(kanri.ESTALE, "new.stale", err) }`, []string{"new.stale"}},
		{"field error", `func f() error { return kanri.Invalid(kanri.Fields{"name": "new.field"}) }`, []string{"new.field"}},
		{"field error set later", `func f() error {
			errs := kanri.Fields{}
			errs["name"] = "new.later"
			return kanri.Invalid(errs)
		}`, []string{"new.later"}},
		{"through a parameter", `func label(ctx context.Context, key string) string { return i18n.T(ctx, key) }
			func g(ctx context.Context) string { return label(ctx, "new.param") }`, []string{"new.param"}},
		{"through a method's parameter", `type s struct{}
			func (s) flash(ctx context.Context, key string) string { return i18n.T(ctx, key) }
			func g(ctx context.Context, x s) string { return x.flash(ctx, "new.method") }`, []string{"new.method"}},
		{"through a struct field", `type Page struct{ Notice string }
			func show(ctx context.Context, p Page) string { return i18n.T(ctx, p.Notice) }
			func g() Page { return Page{Notice: "new.notice"} }
			func h(p *Page) { p.Notice = "new.assigned" }`, []string{"new.notice", "new.assigned"}},
		{"through a map field", `type Form struct{ Errors map[string]string }
			func show(ctx context.Context, f Form) string { return i18n.T(ctx, f.Errors["name"]) }
			func g() Form { return Form{Errors: map[string]string{"name": "new.map"}} }`, []string{"new.map"}},
		{"returned", `func msg(n int) string {
				if n < 0 {
					return "new.negative"
				}
				return ""
			}
			func g(ctx context.Context) string { return i18n.T(ctx, msg(1)) }`, []string{"new.negative"}},
		{"through a variable", `func g(ctx context.Context, ok bool) string {
				key := "new.one"
				if !ok {
					key = "new.other"
				}
				return i18n.T(ctx, key)
			}`, []string{"new.one", "new.other"}},
		{"a map lookup", `var titles = map[string]string{"a": "new.title"}
			func g(ctx context.Context, code string) string {
				title, ok := titles[code]
				if !ok {
					title = "new.fallback"
				}
				return i18n.T(ctx, title)
			}`, []string{"new.fallback", "new.title"}},
		{"a constant", `const k = "new.const"
			func g(ctx context.Context) string { return i18n.T(ctx, k) }`, []string{"new.const"}},
		{"made at run time", `func g(ctx context.Context, s string) string { return i18n.T(ctx, "new.status." + s) }`, []string{"new.status.*"}},
		{"a templ view", `func T(ctx context.Context, key string, args ...any) string { return i18n.T(ctx, key, args...) }
			func v(ctx context.Context) string { return T(ctx, "new.view") }`, []string{"new.view"}},
		{"not a key", `func g(ctx context.Context, perm string) bool { return perm == "users.read" && i18n.T(ctx, "app.name") != "" }`, []string{"app.name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kf := newKeyFinder()
			src := "package p\n\nimport (\n\t\"context\"\n\t\"github.com/kanri/kanri/internal/i18n\"\n\t\"github.com/kanri/kanri/internal/kanri\"\n)\n\n" + tt.src
			if err := kf.add("p.go", []byte(src)); err != nil {
				t.Fatal(err)
			}
			for _, file := range kanriStubs {
				if err := kf.add(file.name, []byte(file.src)); err != nil {
					t.Fatal(err)
				}
			}
			kf.find()
			var got []string
			for _, u := range kf.uses {
				if u.prefix {
					got = append(got, u.key+"*")
				} else {
					got = append(got, u.key)
				}
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Errorf("got keys %q, want %q", got, want)
			}
		})
	}
}

// kanriStubs are the translators' declarations for TestKeyFinderFindsEveryShape.
var kanriStubs = []struct{ name, src string }{
	{"kanri.go", `package kanri
		type Fields map[string]string
		type Error struct{ Code, Key string; Fields map[string]string }
		func E(code, key string, args ...any) *Error { return &Error{Code: code, Key: key} }
		func Wrap(code, key string, err error) *Error { return &Error{Code: code, Key: key} }
		func Invalid(fields map[string]string) *Error { return &Error{Fields: fields} }`},
	{"i18n.go", `package i18n
		func T(ctx context.Context, key string, args ...any) string { return key }
		func Translate(lang, key string, args ...any) string { return key }`},
}

// hasPrefix reports whether a catalog key starts with prefix.
func hasPrefix(prefix string) bool {
	for k := range catalog {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// A keyUse is a string in the code that is used as a message key: the whole
// key, or (prefix) the constant beginning of a key made at run time.
type keyUse struct {
	key    string
	prefix bool
	pos    token.Position
	via    string // how it reaches a translator, for the test's log
}

// keyFinder finds the message keys of a program by following values back
// from the translators, through the program's syntax alone (no type
// checking): a key is a string constant that can reach a key parameter of
// a translator, directly or through parameters of other functions, struct
// fields, map values, variables, constants, return values and conversions.
// It tracks names, not types: a struct field or method named like one that
// carries keys carries keys wherever it is declared, which errs towards
// checking too much, never too little.
type keyFinder struct {
	fset  *token.FileSet
	files []*ast.File
	funcs map[string][]*ast.FuncDecl // by funcID
	types map[string]bool            // the struct types declared, as "pkg.Name"
	// consts holds the package-level constants and variables, by package
	// and name.
	consts map[string]ast.Expr
	// marked holds the slots known to carry keys: "F#i" (parameter i of
	// function F), "F#ri" (its result i), "field:N" (struct fields and map
	// fields named N), "var:F/v" (local variable v of function F).
	marked map[string]bool
	// nodes holds, by slot, the nodes that may put a value into it (see
	// slotsOf): mark reads them instead of walking every file again.
	nodes map[string][]node
	queue []site
	seen  map[site]bool
	uses  []keyUse
}

// A site is an expression whose value is used as a message key (or a map
// of them), inside function fn of package pkg.
type site struct {
	expr ast.Expr
	fn   *ast.FuncDecl
	file *ast.File
	via  string
}

func newKeyFinder() *keyFinder {
	return &keyFinder{fset: token.NewFileSet(), funcs: map[string][]*ast.FuncDecl{}, types: map[string]bool{}, consts: map[string]ast.Expr{}, marked: map[string]bool{}, seen: map[site]bool{}}
}

// parseCode reads every Go file of the application under root: not tests,
// but the code templ generates from the views.
func parseCode(t *testing.T, root string) *keyFinder {
	t.Helper()
	kf := newKeyFinder()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return kf.add(path, b)
	})
	if err != nil {
		t.Fatal(err)
	}
	return kf
}

// add parses one file.
func (kf *keyFinder) add(name string, src []byte) error {
	f, err := parser.ParseFile(kf.fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	kf.files = append(kf.files, f)
	pkg := f.Name.Name
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			id := funcID(pkg, d)
			kf.funcs[id] = append(kf.funcs[id], d)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					kf.types[pkg+"."+ts.Name.Name] = true
				}
				if vs, ok := s.(*ast.ValueSpec); ok {
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							kf.consts[pkg+"."+n.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
	return nil
}

// funcID names a function by package and name, a method by its name alone
// (the receiver's type is unknown at a call site without type checking).
func funcID(pkg string, d *ast.FuncDecl) string {
	if d.Recv != nil {
		return "." + d.Name.Name
	}
	return pkg + "." + d.Name.Name
}

// callee returns the funcID a call in file f calls.
func callee(f *ast.File, call *ast.CallExpr) string {
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		return f.Name.Name + "." + fn.Name
	case *ast.SelectorExpr:
		if x, ok := fn.X.(*ast.Ident); ok {
			if pkg, ok := importName(f, x.Name); ok {
				return pkg + "." + fn.Sel.Name
			}
		}
		return "." + fn.Sel.Name
	case *ast.IndexExpr: // a generic function instantiated explicitly
		if id, ok := fn.X.(*ast.Ident); ok {
			return f.Name.Name + "." + id.Name
		}
	}
	return ""
}

// typeName returns the package and name of a composite literal's type, as
// "pkg.Name", or "" when it is not a named type (or is left out).
func typeName(f *ast.File, e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return f.Name.Name + "." + t.Name
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok {
			if pkg, ok := importName(f, x.Name); ok {
				return pkg + "." + t.Sel.Name
			}
		}
	}
	return ""
}

// importName reports whether name is a package imported by f, and the
// name of that package (the last element of its path).
func importName(f *ast.File, name string) (string, bool) {
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		elems := strings.Split(p, "/")
		base := elems[len(elems)-1]
		if len(elems) > 1 && len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
			base = elems[len(elems)-2] // github.com/labstack/echo/v4 is echo
		}
		if imp.Name != nil {
			if imp.Name.Name == name {
				return base, true
			}
			continue
		}
		if base == name {
			return base, true
		}
	}
	return "", false
}

// find follows the values from the translators back to the constants.
func (kf *keyFinder) find() {
	for _, slot := range translators {
		kf.mark(slot)
	}
	for len(kf.queue) > 0 {
		s := kf.queue[0]
		kf.queue = kf.queue[1:]
		kf.follow(s)
	}
}

// use queues e as a key (or a map of keys) used in fn.
func (kf *keyFinder) use(e ast.Expr, fn *ast.FuncDecl, f *ast.File, via string) {
	s := site{e, fn, f, via}
	if !kf.seen[s] {
		kf.seen[s] = true
		kf.queue = append(kf.queue, s)
	}
}

// follow records the key that s is, or marks the slots s reads from.
func (kf *keyFinder) follow(s site) {
	switch e := ast.Unparen(s.expr).(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return
		}
		v, err := strconv.Unquote(e.Value)
		if err != nil || v == "" { // "": no message
			return
		}
		kf.uses = append(kf.uses, keyUse{key: v, pos: kf.fset.Position(e.Pos()), via: s.via})
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return
		}
		// "status." + s: the key's constant beginning.
		left := e.X
		for {
			b, ok := ast.Unparen(left).(*ast.BinaryExpr)
			if !ok || b.Op != token.ADD {
				break
			}
			left = b.X
		}
		if lit, ok := ast.Unparen(left).(*ast.BasicLit); ok && lit.Kind == token.STRING {
			v, _ := strconv.Unquote(lit.Value)
			kf.uses = append(kf.uses, keyUse{key: v, prefix: true, pos: kf.fset.Position(lit.Pos()), via: "concatenation"})
		}
	case *ast.Ident:
		if s.fn != nil {
			if i, ok := paramIndex(s.fn, e.Name); ok {
				kf.mark(fmt.Sprintf("%s#%d", funcID(s.file.Name.Name, s.fn), i))
				return
			}
			if declaredIn(s.fn, e.Name) {
				kf.mark("var:" + funcID(s.file.Name.Name, s.fn) + "/" + e.Name)
				return
			}
		}
		if v, ok := kf.consts[s.file.Name.Name+"."+e.Name]; ok {
			kf.use(v, nil, s.file, "variable")
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if pkg, ok := importName(s.file, x.Name); ok {
				if v, ok := kf.consts[pkg+"."+e.Sel.Name]; ok {
					kf.use(v, nil, s.file, "variable")
				}
				return
			}
		}
		kf.mark("field:" + e.Sel.Name)
	case *ast.IndexExpr: // m[k]: the map's values are keys
		kf.use(e.X, s.fn, s.file, s.via)
	case *ast.TypeAssertExpr: // v.(string)
		kf.use(e.X, s.fn, s.file, s.via)
	case *ast.CompositeLit: // a map of keys, as in kanri.Fields{...}
		for _, elt := range e.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				kf.use(kv.Value, s.fn, s.file, "map value")
			}
		}
	case *ast.CallExpr:
		id := callee(s.file, e)
		if slices.ContainsFunc(translators, func(slot string) bool { return strings.HasPrefix(slot, id+"#") }) {
			return // a translation (or an error), whose key is checked where it is made
		}
		if _, ok := kf.funcs[id]; ok {
			kf.mark(id + "#r0")
			return
		}
		if len(e.Args) == 1 { // a conversion, as in views.Errors(fields)
			kf.use(e.Args[0], s.fn, s.file, s.via)
		}
	}
}

// mark records that slot carries keys and queues the expressions whose
// values flow into it.
func (kf *keyFinder) mark(slot string) {
	if kf.marked[slot] {
		return
	}
	kf.marked[slot] = true
	if kf.nodes == nil {
		kf.index()
	}
	for _, n := range kf.nodes[slot] {
		kf.sources(slot, n.file, n.fn, n.node)
	}
}

// node is a node of function fn (nil at package level) of file f.
type node struct {
	file *ast.File
	fn   *ast.FuncDecl
	node ast.Node
}

// index walks every file once and files each node under the slots it may
// put a value into.
func (kf *keyFinder) index() {
	kf.nodes = map[string][]node{}
	for _, f := range kf.files {
		for _, d := range f.Decls {
			fn, _ := d.(*ast.FuncDecl)
			ast.Inspect(d, func(n ast.Node) bool {
				for _, slot := range slotsOf(f, fn, n) {
					kf.nodes[slot] = append(kf.nodes[slot], node{f, fn, n})
				}
				return true
			})
		}
	}
}

// slotsOf returns every slot that sources may find node n putting a value
// into (a superset: sources decides).
func slotsOf(f *ast.File, fn *ast.FuncDecl, n ast.Node) []string {
	pkg := f.Name.Name
	var out []string
	local := func(name string) {
		if fn != nil && name != "" {
			out = append(out, "var:"+funcID(pkg, fn)+"/"+name)
			if i, ok := paramIndex(fn, name); ok {
				out = append(out, fmt.Sprintf("%s#%d", funcID(pkg, fn), i))
			}
		}
	}
	switch n := n.(type) {
	case *ast.CallExpr:
		id := callee(f, n)
		for i := range n.Args {
			out = append(out, fmt.Sprintf("%s#%d", id, i))
		}
	case *ast.ReturnStmt:
		if fn != nil {
			for i := range n.Results {
				out = append(out, fmt.Sprintf("%s#r%d", funcID(pkg, fn), i))
			}
		}
	case *ast.CompositeLit:
		for _, elt := range n.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok {
					out = append(out, "field:"+k.Name)
				}
			}
		}
	case *ast.AssignStmt:
		for _, lhs := range n.Lhs {
			switch l := lhs.(type) {
			case *ast.Ident:
				local(l.Name)
			case *ast.SelectorExpr:
				out = append(out, "field:"+l.Sel.Name)
			case *ast.IndexExpr:
				switch x := ast.Unparen(l.X).(type) {
				case *ast.Ident:
					local(x.Name)
				case *ast.SelectorExpr:
					out = append(out, "field:"+x.Sel.Name)
				}
			}
		}
	case *ast.ValueSpec:
		for _, name := range n.Names {
			local(name.Name)
		}
	}
	return out
}

// sources queues what node n of function fn in file f puts into slot.
func (kf *keyFinder) sources(slot string, f *ast.File, fn *ast.FuncDecl, n ast.Node) {
	pkg := f.Name.Name
	switch n := n.(type) {
	case *ast.CallExpr: // an argument of a parameter slot
		id := callee(f, n)
		for i, a := range n.Args {
			if slot == fmt.Sprintf("%s#%d", id, i) {
				kf.use(a, fn, f, "argument")
			}
		}
	case *ast.ReturnStmt: // a result of a result slot
		if fn == nil {
			return
		}
		for i, r := range n.Results {
			if slot == fmt.Sprintf("%s#r%d", funcID(pkg, fn), i) && returnsFrom(fn, n) {
				kf.use(r, fn, f, "return")
			}
		}
	case *ast.CompositeLit: // Page{Notice: "…"}, of a type of the application's
		if typ := typeName(f, n.Type); typ != "" && !kf.types[typ] {
			return // a library's type, as echo.HTTPError{Message: …}
		}
		for _, elt := range n.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && slot == "field:"+k.Name {
					kf.use(kv.Value, fn, f, "field")
				}
			}
		}
	case *ast.AssignStmt:
		for i, lhs := range n.Lhs {
			var rhs ast.Expr
			if len(n.Rhs) == len(n.Lhs) {
				rhs = n.Rhs[i]
			} else if call, ok := n.Rhs[0].(*ast.CallExpr); ok && len(n.Rhs) == 1 {
				if id := callee(f, call); slot == "var:"+funcID(pkg, fn)+"/"+identName(lhs) && fn != nil {
					kf.mark(fmt.Sprintf("%s#r%d", id, i))
				}
				continue
			} else if i == 0 {
				rhs = n.Rhs[0] // v, ok := m[k] (or x.(T), <-c)
			} else {
				continue
			}
			switch l := lhs.(type) {
			case *ast.Ident: // v = "…"
				if fn != nil && slot == "var:"+funcID(pkg, fn)+"/"+l.Name {
					kf.use(rhs, fn, f, "variable")
				}
			case *ast.SelectorExpr: // p.Notice = "…"
				if slot == "field:"+l.Sel.Name {
					kf.use(rhs, fn, f, "field")
				}
			case *ast.IndexExpr: // errs["name"] = "…", p.Errors[f] = …
				switch x := ast.Unparen(l.X).(type) {
				case *ast.Ident:
					if fn != nil && (slot == "var:"+funcID(pkg, fn)+"/"+x.Name || isParamSlot(slot, pkg, fn, x.Name)) {
						kf.use(rhs, fn, f, "map value")
					}
				case *ast.SelectorExpr:
					if slot == "field:"+x.Sel.Name {
						kf.use(rhs, fn, f, "map value")
					}
				}
			}
		}
	case *ast.ValueSpec: // var v = "…"
		for i, name := range n.Names {
			if fn != nil && i < len(n.Values) && slot == "var:"+funcID(pkg, fn)+"/"+name.Name {
				kf.use(n.Values[i], fn, f, "variable")
			}
		}
	}
}

// isParamSlot reports whether slot is the parameter name of fn.
func isParamSlot(slot, pkg string, fn *ast.FuncDecl, name string) bool {
	i, ok := paramIndex(fn, name)
	return ok && slot == fmt.Sprintf("%s#%d", funcID(pkg, fn), i)
}

// identName returns the name of an identifier, or "".
func identName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// paramIndex returns the index of fn's parameter name.
func paramIndex(fn *ast.FuncDecl, name string) (int, bool) {
	i := 0
	for _, field := range fn.Type.Params.List {
		if len(field.Names) == 0 {
			i++
			continue
		}
		for _, n := range field.Names {
			if n.Name == name {
				return i, true
			}
			i++
		}
	}
	return 0, false
}

// declaredIn reports whether name is declared inside fn's body or as one
// of its named results.
func declaredIn(fn *ast.FuncDecl, name string) bool {
	found := false
	if fn.Type.Results != nil {
		for _, field := range fn.Type.Results.List {
			for _, n := range field.Names {
				found = found || n.Name == name
			}
		}
	}
	if fn.Body == nil {
		return found
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					found = found || identName(l) == name
				}
			}
		case *ast.ValueSpec:
			for _, n := range n.Names {
				found = found || n.Name == name
			}
		case *ast.RangeStmt:
			found = found || identName(n.Key) == name || identName(n.Value) == name
		}
		return !found
	})
	return found
}

// returnsFrom reports whether ret returns from fn itself, not from a
// function literal inside it.
func returnsFrom(fn *ast.FuncDecl, ret *ast.ReturnStmt) bool {
	inLit := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok {
			ast.Inspect(lit.Body, func(m ast.Node) bool {
				inLit = inLit || m == ret
				return !inLit
			})
			return false
		}
		return !inLit
	})
	return !inLit
}
