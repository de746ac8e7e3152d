package schema_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/schema"
)

const module = "github.com/kanri/kanri"

// written is what the code says it writes: the values of its Type…
// constants (the documents' "type"), and its Go types of documents (those
// that embed kanri.Doc), as "package path.Name".
type written struct {
	typeNames map[string]string // type name → where its constant is
	goTypes   map[string]string // package path.Name → where it is
}

// typeConst matches the names of constants that name a document type.
var typeConst = regexp.MustCompile(`^[Tt]ype[A-Z]\w*$`)

// scan reads every non-test Go file of the module.
func scan(t *testing.T) written {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	w := written{typeNames: map[string]string{}, goTypes: map[string]string{}}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "node_modules" || strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "_templ.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := module + "/" + filepath.ToSlash(rel)
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					for i, name := range s.Names {
						if gd.Tok != token.CONST || !typeConst.MatchString(name.Name) || i >= len(s.Values) {
							continue
						}
						if lit, ok := s.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							v, _ := strconv.Unquote(lit.Value)
							w.typeNames[v] = fset.Position(name.Pos()).String()
						}
					}
				case *ast.TypeSpec:
					if st, ok := s.Type.(*ast.StructType); ok && embedsDoc(st) {
						w.goTypes[pkg+"."+s.Name.Name] = fset.Position(s.Pos()).String()
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.typeNames) < 40 || len(w.goTypes) < 40 {
		t.Fatalf("the scan found only %d type names and %d document types: is it reading the module?", len(w.typeNames), len(w.goTypes))
	}
	return w
}

// embedsDoc reports whether a struct embeds kanri.Doc.
func embedsDoc(st *ast.StructType) bool {
	for _, f := range st.Fields.List {
		if len(f.Names) > 0 {
			continue
		}
		switch x := f.Type.(type) {
		case *ast.Ident:
			if x.Name == "Doc" {
				return true
			}
		case *ast.SelectorExpr:
			if x.Sel.Name == "Doc" {
				return true
			}
		}
	}
	return false
}

// undeclared returns what the code writes that types do not declare.
func undeclared(w written, types []doctype.Type) []string {
	names, goTypes := map[string]bool{}, map[string]bool{}
	for _, t := range types {
		names[t.Name] = true
		rt := reflect.TypeOf(t.Of).Elem()
		goTypes[rt.PkgPath()+"."+rt.Name()] = true
	}
	var out []string
	for name, where := range w.typeNames {
		if !names[name] {
			out = append(out, "document type "+strconv.Quote(name)+" ("+where+")")
		}
	}
	for gt, where := range w.goTypes {
		if !goTypes[gt] {
			out = append(out, "Go type "+gt+" ("+where+")")
		}
	}
	slices.Sort(out)
	return out
}

// TestEveryWrittenTypeIsDeclared: every document type the code names, and
// every Go type of a document, has a declaration; and removing any one
// declaration is noticed.
func TestEveryWrittenTypeIsDeclared(t *testing.T) {
	w := scan(t)
	types := schema.Set().Types()
	if missing := undeclared(w, types); len(missing) > 0 {
		t.Errorf("written but not declared (add them to the owning feature's DocTypes):\n%s", strings.Join(missing, "\n"))
	}
	for i, removed := range types {
		rest := slices.Delete(slices.Clone(types), i, i+1)
		if slices.ContainsFunc(rest, func(o doctype.Type) bool { return o.Name == removed.Name }) {
			continue // declared in another container too: still named
		}
		if missing := undeclared(w, rest); len(missing) == 0 {
			t.Errorf("without the declaration of %s/%s, the check finds nothing missing", removed.Container, removed.Name)
		}
	}
}

// TestDeclaredFieldsExist: every field a declaration names (indexes,
// personal data, the fields erasure pseudonymises) is a JSON field of its
// Go type, and a declared TTL is the one its documents get.
func TestDeclaredFieldsExist(t *testing.T) {
	for _, d := range schema.Set().Types() {
		rt := reflect.TypeOf(d.Of).Elem()
		var fields []string
		for _, ix := range d.Indexes {
			fields = append(fields, ix.Fields...)
		}
		if d.Personal.Owner != "" {
			fields = append(fields, d.Personal.Owner)
		}
		fields = append(append(fields, d.Personal.Data...), d.Erasure.Pseudonymised...)
		for _, f := range fields {
			if !hasField(rt, f) {
				t.Errorf("%s/%s names %q, which %s has not", d.Container, d.Name, f, rt)
			}
		}
		if exp, ok := d.Of.(interface{ TTLField() (*int, int) }); ok {
			_, def := exp.TTLField()
			if got, want := d.Retention.TTL, time.Duration(def)*time.Second; got != want {
				t.Errorf("%s/%s: declared TTL %v, its documents get %v", d.Container, d.Name, got, want)
			}
		}
	}
}

// hasField reports whether a dotted JSON path ("security.lastLoginAt",
// "searchTerms[]") leads to a field of rt.
func hasField(rt reflect.Type, path string) bool {
	for _, name := range strings.Split(path, ".") {
		name = strings.TrimSuffix(name, "[]")
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice {
			rt = rt.Elem()
		}
		if rt.Kind() == reflect.Map {
			return true // free-form below this point
		}
		if rt.Kind() != reflect.Struct {
			return false
		}
		f, ok := jsonField(rt, name)
		if !ok {
			return false
		}
		rt = f.Type
	}
	return true
}

// jsonField finds the field of rt (or of a struct it embeds) whose JSON
// name is name.
func jsonField(rt reflect.Type, name string) (reflect.StructField, bool) {
	for i := range rt.NumField() {
		f := rt.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && tag == "" {
			if inner, ok := jsonField(f.Type, name); ok {
				return inner, true
			}
			continue
		}
		if tag == name || tag == "" && f.Name == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// TestTheSpecsHoldEveryIndex: the store's containers get every declared
// index.
func TestTheSpecsHoldEveryIndex(t *testing.T) {
	n := 0
	for _, d := range schema.Set().Types() {
		n += len(d.Indexes)
	}
	got := 0
	for _, sp := range schema.Specs() {
		got += len(sp.Indexes)
	}
	if got != n {
		t.Errorf("the specs hold %d indexes, the declarations %d", got, n)
	}
}

// TestTheDocsListEveryType: docs/architecture.md's table of document types
// is the declarations'. KANRI_UPDATE_DOCS=1 writes it.
func TestTheDocsListEveryType(t *testing.T) {
	const path = "../../docs/architecture.md"
	const begin, end = "<!-- doctypes:begin (generated by internal/schema's tests) -->\n", "<!-- doctypes:end -->"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no table between %q and %q", path, begin, end)
	}
	want := table(schema.Set().Types())
	if got := doc[i+len(begin) : j]; got != want {
		if os.Getenv("KANRI_UPDATE_DOCS") == "1" {
			if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s's table of document types is not the declarations' (KANRI_UPDATE_DOCS=1 go test ./internal/schema/ writes it)", path)
	}
}

// table renders the declarations as a Markdown table.
func table(types []doctype.Type) string {
	var b strings.Builder
	b.WriteString("| Container | Type | Version | Backup | Personal data | Erasure | Export | Retention |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, t := range types {
		backup := t.Backup.Part
		if backup == "" {
			backup = "no: " + t.Backup.Not
		}
		personal, erasure, export := "", "", ""
		if t.Personal.Owner != "" {
			personal = "of `" + t.Personal.Owner + "`: " + code(t.Personal.Data)
			erasure = t.Erasure.Rule.String()
			switch t.Erasure.Rule {
			case doctype.Pseudonymise:
				erasure += " " + code(t.Erasure.Pseudonymised)
			case doctype.Keep:
				erasure += ": " + t.Erasure.Reason
			}
			export = "no"
			if t.Export {
				export = "yes"
			}
		}
		var retention []string
		if t.Retention.TTL > 0 {
			retention = append(retention, "ttl "+days(t.Retention.TTL))
		}
		if t.Retention.PerDocument != "" {
			retention = append(retention, t.Retention.PerDocument)
		}
		if t.Retention.Archive {
			retention = append(retention, "to be archived before expiry (issue 31)")
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %s | %s | %s |\n", t.Container, t.Name, t.Version(), backup, personal, erasure, export, strings.Join(retention, "; "))
	}
	return b.String()
}

func code(fields []string) string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = "`" + f + "`"
	}
	return strings.Join(out, ", ")
}

// days writes a TTL in days, or in hours below a day.
func days(d time.Duration) string {
	if d < 24*time.Hour {
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
}
