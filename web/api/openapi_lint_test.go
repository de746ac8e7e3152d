package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/web/api"
)

// lintSkipEnv, set to 1 outside CI, skips the OpenAPI lint when the
// pinned npm tools are not installed (as KANRI_SKIP_COSMOS does for the
// Cosmos DB suite). With CI set the lint always runs, and fails without
// its tools.
const lintSkipEnv = "KANRI_SKIP_OPENAPI_LINT"

// lintTool returns the path of an npm tool of the repository
// (node_modules/.bin/<name>) and the repository's root, failing the test
// when it is missing, or skipping it when lintSkipEnv is 1 and CI is not
// set.
func lintTool(t *testing.T, name string) (tool, root string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tool = filepath.Join(root, "node_modules", ".bin", name)
	var missing string
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(tool); err != nil {
		missing = tool + " is missing"
	}
	if missing != "" {
		if os.Getenv(lintSkipEnv) == "1" && os.Getenv("CI") == "" {
			t.Skipf("%s (skipped: %s=1)", missing, lintSkipEnv)
		}
		t.Fatalf("%s: run `make deps` (npm ci) first, or set %s=1 outside CI to skip the OpenAPI lint", missing, lintSkipEnv)
	}
	return tool, root
}

// lintEnv is the environment of the linters: no telemetry, no update
// check, nothing sent anywhere.
func lintEnv() []string {
	return append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_UPDATE_NOTIFIER=1", "CI=true")
}

// lintProblem is one thing a linter reports.
type lintProblem struct {
	linter, severity, rule, where, message string
}

func (p lintProblem) String() string {
	return fmt.Sprintf("%s %s %s at %s: %s", p.linter, p.severity, p.rule, p.where, p.message)
}

// redoclyLint runs Redocly CLI on a document with the repository's
// redocly.yaml (the recommended rules).
func redoclyLint(t *testing.T, doc string) []lintProblem {
	tool, root := lintTool(t, "redocly")
	cmd := exec.Command(tool, "lint", "--config", filepath.Join(root, "redocly.yaml"), "--format", "json", doc)
	cmd.Env = lintEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run() // exits 1 when it finds errors: the report says what
	var out struct {
		Totals   struct{ Errors, Warnings, Ignored int }
		Problems []struct {
			RuleID, Severity, Message string
			Location                  []struct{ Pointer string }
		}
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &out); jerr != nil {
		t.Fatalf("redocly lint: %v (%v); its output:\n%s\n%s", jerr, err, stdout.String(), stderr.String())
	}
	var got []lintProblem
	for _, p := range out.Problems {
		where := ""
		if len(p.Location) > 0 {
			where = p.Location[0].Pointer
		}
		got = append(got, lintProblem{"redocly", p.Severity, p.RuleID, where, p.Message})
	}
	if len(got) != out.Totals.Errors+out.Totals.Warnings+countSeverity(got, "info") {
		t.Logf("redocly totals %+v for %d problems", out.Totals, len(got))
	}
	return got
}

// spectralLint runs Spectral on a document with the repository's
// .spectral.yaml (spectral:oas and the OWASP API Security ruleset).
func spectralLint(t *testing.T, doc string) []lintProblem {
	tool, root := lintTool(t, "spectral")
	cmd := exec.Command(tool, "lint", "--ruleset", filepath.Join(root, ".spectral.yaml"), "--format", "json", "--quiet", doc)
	cmd.Env = lintEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run() // exits 1 when it finds errors: the report says what
	var out []struct {
		Code     string
		Message  string
		Severity int // 0 error, 1 warning, 2 information, 3 hint
		Path     []any
	}
	text := strings.TrimSpace(stdout.String())
	if text == "" || strings.HasPrefix(text, "No results") {
		text = "[]"
	}
	if jerr := json.Unmarshal([]byte(text), &out); jerr != nil {
		t.Fatalf("spectral lint: %v (%v); its output:\n%s\n%s", jerr, err, stdout.String(), stderr.String())
	}
	if err != nil && len(out) == 0 {
		t.Fatalf("spectral lint: %v; its output:\n%s", err, stderr.String())
	}
	var got []lintProblem
	for _, p := range out {
		path := make([]string, len(p.Path))
		for i, s := range p.Path {
			path[i] = fmt.Sprint(s)
		}
		got = append(got, lintProblem{"spectral", [...]string{"error", "warn", "info", "hint"}[min(max(p.Severity, 0), 3)], p.Code, strings.Join(path, "."), p.Message})
	}
	return got
}

func countSeverity(ps []lintProblem, severity string) int {
	n := 0
	for _, p := range ps {
		if p.severity == severity {
			n++
		}
	}
	return n
}

// TestOpenAPIDocumentPassesLinters lints the document the server serves
// with Redocly CLI's recommended rules and Spectral's spectral:oas and
// OWASP rules (the pinned npm tools, configured by redocly.yaml and .spectral.yaml at the
// repository's root, which say which rules are off and why): neither may
// report an error or a warning. It lints too the document of the API with
// routes declared as Routes declares them, with no more than a method,
// path, scope, summary, schemas and status (no operationId, tag or doc of
// their own), so that a route added that way cannot make the document fail.
func TestOpenAPIDocumentPassesLinters(t *testing.T) {
	t.Parallel()
	s := served()
	served := s.Routes()
	more := append(slices.Clone(served),
		// Routes the API does not serve (those this list once had, /me,
		// DELETE /users/{id} and /roles, are served now).
		api.Route{Method: http.MethodGet, Path: "/whoami", Scope: kanri.ScopeRead, Summary: "Read the key's own description", Response: "User", Status: 200},
		api.Route{Method: http.MethodDelete, Path: "/widgets/:widget", Scope: kanri.ScopeWrite, Perm: role.UsersDelete, Summary: "Delete a widget", Status: 204, IfMatch: true},
		api.Route{Method: http.MethodGet, Path: "/catalogue", Scope: kanri.ScopeRead, Perm: role.RolesRead, Summary: "List the role catalogue",
			Query: []api.Param{api.ParamLimit, api.ParamNext}, Response: "RoleAssignmentList", Status: 200},
		api.Route{Method: http.MethodPost, Path: "/widgets/:widget/parts", Scope: kanri.ScopeWrite, Perm: role.UsersCreate, Summary: "Add a part",
			Request: "UserUpdate", Response: "User", Status: 201, Unchanged: 200, ETag: true, Location: true},
	)
	for _, tc := range []struct {
		name   string
		routes []api.Route
	}{{"served", served}, {"with routes declared without operationId or tag", more}} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.MarshalIndent(s.Document("https://kanri.test", tc.routes), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			doc := filepath.Join(t.TempDir(), "openapi.json")
			if err := os.WriteFile(doc, b, 0o600); err != nil {
				t.Fatal(err)
			}
			for _, lint := range []func(*testing.T, string) []lintProblem{redoclyLint, spectralLint} {
				for _, p := range lint(t, doc) {
					if p.severity == "error" || p.severity == "warn" || p.severity == "warning" {
						t.Error(p)
					} else {
						t.Log(p)
					}
				}
			}
		})
	}
}

// TestOpenAPILintersReportProblems feeds the linters a document with
// faults they must report, so that the lint above cannot pass by reading
// nothing.
func TestOpenAPILintersReportProblems(t *testing.T) {
	t.Parallel()
	doc := filepath.Join(t.TempDir(), "bad.json")
	bad := `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"servers":[{"url":"https://example.com/api"}],
		"paths":{"/things":{"get":{"responses":{"200":{"description":"ok"}}}}}}`
	if err := os.WriteFile(doc, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lint func(*testing.T, string) []lintProblem
		want []string // rules it must report
	}{
		{redoclyLint, []string{"operation-operationId", "operation-4xx-response", "no-server-example.com"}},
		{spectralLint, []string{"operation-operationId", "operation-tags", "operation-description",
			"owasp:api4:2023-rate-limit", "owasp:api8:2023-define-error-responses-401", "owasp:api9:2023-inventory-access"}},
	} {
		got := tc.lint(t, doc)
		for _, rule := range tc.want {
			found := false
			for _, p := range got {
				found = found || p.rule == rule
			}
			if !found {
				t.Errorf("got %v, want a report of %s", got, rule)
			}
		}
	}
}
