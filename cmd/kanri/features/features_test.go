package features_test

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

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/bolt/bolttest"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/wiring"
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
	root, err := filepath.Abs("../../..")
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
	types := features.Schema().Types()
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
	for _, d := range features.Schema().Types() {
		rt := reflect.TypeOf(d.Of).Elem()
		var fields []string
		for _, ix := range d.Indexes {
			fields = append(fields, ix.Fields...)
		}
		if d.Personal.Owner != "" {
			fields = append(fields, d.Personal.Owner)
		}
		if d.Personal.Subject != "" {
			fields = append(append(fields, d.Personal.Subject), d.Personal.SubjectData...)
		}
		fields = append(append(append(fields, d.Personal.Data...), d.Erasure.Pseudonymised...), d.Export...)
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
	for _, d := range features.Schema().Types() {
		n += len(d.Indexes)
	}
	got := 0
	for _, sp := range features.Specs() {
		got += len(sp.Indexes)
	}
	if got != n {
		t.Errorf("the specs hold %d indexes, the declarations %d", got, n)
	}
}

// TestTheDocsListEveryType: each feature's page in docs/ holds the table
// of its document types, generated from its declarations.
// KANRI_UPDATE_DOCS=1 writes them.
func TestTheDocsListEveryType(t *testing.T) {
	for _, f := range features.All() {
		if len(f.Types) == 0 {
			continue
		}
		path := "../../../docs/" + f.Docs
		begin, end := "<!-- doctypes:begin "+f.Name+" (generated by cmd/kanri/features' tests) -->\n", "<!-- doctypes:end "+f.Name+" -->"
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("feature %s: %v", f.Name, err)
		}
		doc := string(b)
		i, j := strings.Index(doc, begin), strings.Index(doc, end)
		if i < 0 || j < i {
			t.Errorf("%s has no table of feature %s's document types between %q and %q", path, f.Name, begin, end)
			continue
		}
		want := table(f.Types)
		if got := doc[i+len(begin) : j]; got != want {
			if os.Getenv("KANRI_UPDATE_DOCS") == "1" {
				if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s's table of feature %s's document types is not its declarations' (KANRI_UPDATE_DOCS=1 go test ./cmd/kanri/features/ writes it)", path, f.Name)
		}
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
			if len(t.Export) > 0 {
				export = code(t.Export)
			}
		}
		var retention []string
		if t.Retention.TTL > 0 {
			retention = append(retention, "ttl "+days(t.Retention.TTL))
		}
		if t.Retention.PerDocument != "" {
			retention = append(retention, t.Retention.PerDocument)
		}
		switch t.Retention.Archive {
		case doctype.ArchiveAlways:
			retention = append(retention, "archived before expiry when the tenant archives")
		case doctype.ArchiveOnRequest:
			retention = append(retention, "archived before expiry when the tenant chose to")
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
	if d < time.Hour {
		return fmt.Sprintf("%d min", int(d/time.Minute))
	}
	if d < 24*time.Hour {
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
}

// TestEveryFeatureStarts: feature names are unique, every upgrade and
// worker has a unique name (they record upgrades as done and claim
// scheduled runs) and its work, and every core service that offers
// upgrades or workers (a Feature method) is started by a feature, so that
// the composition root, which loops over the features, runs them.
func TestEveryFeatureStarts(t *testing.T) {
	st := store.New(bolttest.Open(t), nil, features.Schema())
	svcs := wiring.New(st, nil, nil, wiring.Options{Roles: features.Roles(), RepairGrace: time.Minute, HealthInterval: time.Minute, DomainRecheck: time.Hour})
	names := map[string]bool{}
	for _, f := range features.All() {
		if names[f.Name] || f.Name == "" {
			t.Errorf("feature %q: unnamed or listed twice", f.Name)
		}
		names[f.Name] = true
	}
	work, served := features.Start(svcs)
	started := map[string]bool{}
	upgrades, workers := map[string]bool{}, map[string]bool{}
	for _, f := range work {
		if started[f.Name] {
			t.Errorf("work %s started twice", f.Name)
		}
		started[f.Name] = true
		for _, u := range f.Upgrades {
			if upgrades[u.Name] || u.Tenant == nil {
				t.Errorf("upgrade %q of %s: twice, or without its work", u.Name, f.Name)
			}
			upgrades[u.Name] = true
		}
		for _, w := range f.Work {
			if workers[w.Name] || (w.Run == nil) == (w.Periodic == nil) || w.Periodic != nil && w.Every <= 0 {
				t.Errorf("work %q of %s: twice, not one of Run and Periodic, or periodic without an interval", w.Name, f.Name)
			}
			workers[w.Name] = true
		}
	}
	v := reflect.ValueOf(svcs).Elem()
	for i := range v.NumField() {
		m := v.Field(i).MethodByName("Feature")
		if !m.IsValid() {
			continue
		}
		f, ok := m.Call(nil)[0].Interface().(app.Feature)
		if !ok {
			t.Fatalf("%s.Feature does not return an app.Feature", v.Type().Field(i).Name)
		}
		if !started[f.Name] {
			t.Errorf("%s offers work %q, which no feature starts", v.Type().Field(i).Name, f.Name)
		}
	}
	if len(started) < 9 || len(upgrades) < 8 || len(workers) < 9 || len(served) < 6 {
		t.Errorf("started %d, %d upgrades, %d workers, %d served: fewer than Kanri has", len(started), len(upgrades), len(workers), len(served))
	}
}

// TestThePlansOfKanrisServices pins what each plan includes of the
// features' offers: the API and backups from the standard plan, the rest
// on every plan; and the operator's plan everything.
func TestThePlansOfKanrisServices(t *testing.T) {
	roles := features.Roles()
	for _, c := range []struct {
		key                               string
		free, standard, premium, operator bool
	}{
		{kanri.AuthServiceID, true, true, true, true},
		{role.UsersCreate, true, true, true, true},
		{role.SettingsUpdate, true, true, true, true},
		{role.FilesCreate, true, true, true, true},
		{role.MessagesCreate, true, true, true, true},
		{kanri.APIServiceID, false, true, true, true},
		{role.APIKeysRead, false, true, true, true},
		{role.APIKeysDelete, false, true, true, true},
		{kanri.BackupServiceID, false, true, true, true},
		{role.BackupsExecute, false, true, true, true},
		{kanri.FeatureAdvancedReporting, false, true, true, true},
		{kanri.FeatureAPIAccess, true, true, true, true}, // the api-service's plan gates the API
		{"an-external-service", true, true, true, true},
	} {
		for plan, want := range map[string]bool{kanri.PlanFree: c.free, kanri.PlanStandard: c.standard, kanri.PlanPremium: c.premium, kanri.PlanPrivileged: c.operator} {
			if got := roles.PlanAllows(plan, c.key); got != want {
				t.Errorf("PlanAllows(%s, %s) = %v, want %v", plan, c.key, got, want)
			}
		}
	}
}

// TestEveryPermissionIsOffered: every permission constant of package role
// is offered by a feature's service, so that some role grants it.
func TestEveryPermissionIsOffered(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../../internal/role/catalog.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	offered := features.Roles().AllPermissions()
	n := 0
	ast.Inspect(f, func(x ast.Node) bool {
		lit, ok := x.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		v, _ := strconv.Unquote(lit.Value)
		if regexp.MustCompile(`^[a-z]+\.[a-z]+$`).MatchString(v) {
			n++
			if !slices.Contains(offered, v) {
				t.Errorf("permission %s is offered by no feature", v)
			}
		}
		return true
	})
	if n < 30 {
		t.Errorf("found %d permissions in internal/role: is the scan reading the constants?", n)
	}
}
