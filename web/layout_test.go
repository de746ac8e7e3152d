package web_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Bounds of the HTTP packages (docs/architecture.md): each package has
// one job, and stays small enough to read.
const (
	maxPackageLines = 3000 // lines of a package's non-test files
	maxTypeMethods  = 60   // methods declared on one type
)

// TestHTTPPackagesStayLayered checks every package under web/: no package
// over maxPackageLines, no type with more than maxTypeMethods methods,
// and files that depend one way, handlers on helpers and never the
// reverse (no cycle among a package's files).
func TestHTTPPackagesStayLayered(t *testing.T) {
	t.Parallel()
	dirs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "_templ.go") {
			return err
		}
		dirs[filepath.Dir(path)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 5 {
		t.Fatalf("found the packages %v under web/, want every HTTP package", dirs)
	}
	for dir := range dirs {
		pkg := readPackage(t, dir)
		if pkg.lines > maxPackageLines {
			t.Errorf("%s: %d lines, more than %d: split it by what it does", dir, pkg.lines, maxPackageLines)
		}
		for typ, n := range pkg.methods {
			if n > maxTypeMethods {
				t.Errorf("%s: %s has %d methods, more than %d", dir, typ, n, maxTypeMethods)
			}
		}
		if cycle := pkg.cycle(); cycle != nil {
			t.Errorf("%s: the files %s use each other: move what they share to a file they both use", dir, strings.Join(cycle, " → "))
		}
	}
}

// goPackage is what the test reads of a package's non-test files.
type goPackage struct {
	lines   int
	methods map[string]int             // by receiver type
	uses    map[string]map[string]bool // file → the files whose declarations it uses
}

// readPackage parses a package's non-test files and finds which file
// uses which: a name the file leaves unresolved (a package-level
// function, type, variable or constant) declared in another file, or a
// method of another file called on the receiver of the calling method.
func readPackage(t *testing.T, dir string) goPackage {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	p := goPackage{methods: map[string]int{}, uses: map[string]map[string]bool{}}
	declaredIn := map[string]string{} // package-level name → file
	methodIn := map[string]string{}   // method name → file
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_templ.go") {
			continue
		}
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p.lines += strings.Count(string(src), "\n")
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declaredIn[d.Name.Name] = name
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					p.methods[id.Name]++
				}
				methodIn[d.Name.Name] = name
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declaredIn[s.Name.Name] = name
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declaredIn[n.Name] = name
						}
					}
				}
			}
		}
	}
	for name, f := range files {
		p.uses[name] = map[string]bool{}
		use := func(other string) {
			if other != "" && other != name {
				p.uses[name][other] = true
			}
		}
		for _, id := range f.Unresolved {
			use(declaredIn[id.Name])
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List[0].Names) == 0 || fn.Body == nil {
				continue
			}
			recv := fn.Recv.List[0].Names[0].Name
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == recv {
						use(methodIn[sel.Sel.Name])
					}
				}
				return true
			})
		}
	}
	return p
}

// cycle returns files that use each other in a ring, or nil.
func (p goPackage) cycle() []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) []string
	visit = func(f string) []string {
		state[f] = open
		path = append(path, f)
		deps := make([]string, 0, len(p.uses[f]))
		for d := range p.uses[f] {
			deps = append(deps, d)
		}
		slices.Sort(deps)
		for _, d := range deps {
			switch state[d] {
			case open:
				i := slices.Index(path, d)
				return append(slices.Clone(path[i:]), d)
			case unseen:
				if c := visit(d); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[f] = done
		return nil
	}
	names := make([]string, 0, len(p.uses))
	for f := range p.uses {
		names = append(names, f)
	}
	slices.Sort(names)
	for _, f := range names {
		if state[f] == unseen {
			if c := visit(f); c != nil {
				return c
			}
		}
	}
	return nil
}
