package cosmos

import (
	"strings"
	"testing"

	"github.com/kanri/kanri/internal/docstore"
)

func TestBuildSQL(t *testing.T) {
	tenant := "tenant_a"
	tests := []struct {
		name   string
		tenant *string
		q      docstore.Query
		want   string
		params int
	}{
		{"tenant and type", &tenant, docstore.Query{Type: "user"},
			`SELECT * FROM c WHERE c.tenantId = @p0 AND c.type = @p1`, 2},
		{"across partitions has no tenant filter", nil, docstore.Query{Type: "tenant"},
			`SELECT * FROM c WHERE c.type = @p0`, 1},
		{"filters and order", &tenant, docstore.Query{Type: "user", OrderBy: "createdAt", Desc: true, Where: []docstore.Filter{
			docstore.Eq("isActive", true), docstore.In("status", "a", "b"), docstore.Contains("name", "Ab"),
		}}, `SELECT * FROM c WHERE c.tenantId = @p0 AND c.type = @p1 AND c["isActive"] = @p2 AND c["status"] IN (@p3, @p4) AND CONTAINS(LOWER(c["name"]), @p5) ORDER BY c["createdAt"] DESC`, 6},
		{"or, nested, prefix, array, defined", &tenant, docstore.Query{Type: "x", Where: []docstore.Filter{
			docstore.Or(docstore.Prefix("metadata.country", "J"), docstore.ArrayContains("tags", "t")), docstore.Defined("value", false),
		}}, `SELECT * FROM c WHERE c.tenantId = @p0 AND c.type = @p1 AND (STARTSWITH(c["metadata"]["country"], @p2) OR ARRAY_CONTAINS(c["tags"], @p3)) AND NOT IS_DEFINED(c["value"])`, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, params, err := buildSQL(tt.tenant, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("sql:\n got %s\nwant %s", got, tt.want)
			}
			if len(params) != tt.params {
				t.Errorf("params: got %d, want %d", len(params), tt.params)
			}
		})
	}
}

// TestBuildSQLNeverInlinesValues checks that no filter value, however
// hostile, appears in the query text.
func TestBuildSQLNeverInlinesValues(t *testing.T) {
	tenant := `x" OR 1=1 --`
	for _, v := range []string{`' OR 1=1 --`, `"); DROP`, `@p0 OR true`, "\x00", "管理"} {
		q := docstore.Query{Type: v, Where: []docstore.Filter{docstore.Eq("name", v), docstore.Contains("name", v), docstore.In("name", v)}}
		sql, _, err := buildSQL(&tenant, q)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(sql, v) || strings.Contains(sql, tenant) {
			t.Errorf("value %q was spliced into %s", v, sql)
		}
	}
}
