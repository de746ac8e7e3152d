package bolt_test

import (
	"context"
	"slices"
	"testing"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
)

// TestTextSearchSkipsOnlyWhatCannotMatch checks the raw-bytes shortcut of
// Contains filters: documents it passes over are exactly those that cannot
// match, whatever their case, the runes that lower-case into ASCII, and
// escaped characters.
func TestTextSearchSkipsOnlyWhatCannotMatch(t *testing.T) {
	st := open(t, features.Specs())
	defer st.Close()
	c := st.Container(kanri.ContainerAuth)
	ctx := context.Background()
	docs := map[string]string{
		"upper":   `{"id":"upper","tenantId":"tenant_a","type":"user","username":"USER05","displayName":"x"}`,
		"mixed":   `{"id":"mixed","tenantId":"tenant_a","type":"user","username":"a","displayName":"Big User05 Co"}`,
		"kelvin":  `{"id":"kelvin","tenantId":"tenant_a","type":"user","username":"ABCK","displayName":"x"}`,
		"dotted":  `{"id":"dotted","tenantId":"tenant_a","type":"user","username":"XYZİ","displayName":"x"}`,
		"escaped": `{"id":"escaped","tenantId":"tenant_a","type":"user","username":"\u0075ser05","displayName":"x"}`,
		"none":    `{"id":"none","tenantId":"tenant_a","type":"user","username":"someone","displayName":"else"}`,
	}
	for _, body := range docs {
		if _, err := c.Create(ctx, "tenant_a", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	search := func(q string) []string {
		t.Helper()
		page, err := c.Query(ctx, "tenant_a", docstore.Query{Type: "user", Where: []docstore.Filter{
			docstore.Or(docstore.Contains("username", q), docstore.Contains("displayName", q)),
		}, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, it := range page.Items {
			ids = append(ids, it.ID)
		}
		slices.Sort(ids)
		return ids
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"user05", []string{"escaped", "mixed", "upper"}},
		{"abck", []string{"kelvin"}},
		{"xyzi", []string{"dotted"}},
		{"nobody", nil},
		{"ELSE", []string{"none"}},
	} {
		if got := search(tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("contains %q: got %v, want %v", tc.q, got, tc.want)
		}
	}
}
