package cosmos

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/kanri/kanri/internal/docstore"
)

// token wraps the service's continuation token with the fingerprint of the
// query it belongs to.
type token struct {
	Query   uint64 `json:"q"`
	Service string `json:"c"`
}

func (c *container) Query(ctx context.Context, pk string, q docstore.Query) (docstore.Page, error) {
	if err := docstore.CheckKey(pk, "x"); err != nil {
		return docstore.Page{}, err
	}
	return c.query(ctx, azcosmos.NewPartitionKeyString(pk), &pk, q)
}

func (c *container) QueryAcrossPartitions(ctx context.Context, q docstore.Query) (docstore.Page, error) {
	if q.OrderBy != "" {
		return docstore.Page{}, docstore.ErrInvalid(errors.New("cosmos: cross-partition queries cannot be ordered"))
	}
	return c.query(ctx, azcosmos.NewPartitionKey(), nil, q)
}

// query runs q, fetching until the page is full or the results end. The
// service may return short pages; each fetch asks only for what is missing.
func (c *container) query(ctx context.Context, pk azcosmos.PartitionKey, tenant *string, q docstore.Query) (docstore.Page, error) {
	if err := q.Validate(); err != nil {
		return docstore.Page{}, err
	}
	sql, params, err := buildSQL(tenant, q)
	if err != nil {
		return docstore.Page{}, err
	}
	scope := ""
	if tenant != nil {
		scope = *tenant
	}
	fp := docstore.Fingerprint(q, scope)
	var next *string
	if q.Continuation != "" {
		t, err := decodeToken(q.Continuation, fp)
		if err != nil {
			return docstore.Page{}, err
		}
		next = &t.Service
	}
	limit := q.PageSize()
	var page docstore.Page
	for {
		pager := c.c.NewQueryItemsPager(sql, pk, &azcosmos.QueryOptions{
			QueryParameters:   params,
			PageSizeHint:      int32(limit - len(page.Items)),
			ContinuationToken: next,
		})
		if !pager.More() {
			break
		}
		resp, err := pager.NextPage(ctx)
		charge(ctx, resp.RequestCharge, err)
		if err != nil {
			return docstore.Page{}, mapError(err)
		}
		for _, body := range resp.Items {
			it, err := toItem(body)
			if err != nil {
				return docstore.Page{}, err
			}
			page.Items = append(page.Items, it)
		}
		next = resp.ContinuationToken
		if next == nil || *next == "" || len(page.Items) >= limit {
			break
		}
	}
	if next != nil && *next != "" {
		page.Continuation = encodeToken(token{Query: fp, Service: *next})
	}
	return page, nil
}

func encodeToken(t token) string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeToken(s string, fp uint64) (token, error) {
	bad := docstore.ErrContinuation()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return token{}, bad
	}
	var t token
	if err := json.Unmarshal(b, &t); err != nil || t.Query != fp || t.Service == "" {
		return token{}, bad
	}
	return t, nil
}

// sqlBuilder accumulates a WHERE clause and its parameters.
type sqlBuilder struct {
	params []azcosmos.QueryParameter
}

// param adds a parameter and returns its name.
func (b *sqlBuilder) param(v any) string {
	name := "@p" + strconv.Itoa(len(b.params))
	b.params = append(b.params, azcosmos.QueryParameter{Name: name, Value: v})
	return name
}

// path renders a validated dotted field path in bracket notation, which is
// safe for every name, including SQL keywords.
func path(field string) string {
	var s strings.Builder
	s.WriteString("c")
	for part := range strings.SplitSeq(field, ".") {
		s.WriteString(`["`)
		s.WriteString(part)
		s.WriteString(`"]`)
	}
	return s.String()
}

// buildSQL renders q as parameterised SQL. tenant, when set, adds the
// c.tenantId filter that keeps the query inside one tenant.
func buildSQL(tenant *string, q docstore.Query) (string, []azcosmos.QueryParameter, error) {
	b := &sqlBuilder{}
	var where []string
	if tenant != nil {
		where = append(where, "c.tenantId = "+b.param(*tenant))
	}
	where = append(where, "c.type = "+b.param(q.Type))
	for _, f := range q.Where {
		cond, err := b.filter(f)
		if err != nil {
			return "", nil, err
		}
		where = append(where, cond)
	}
	sql := "SELECT * FROM c WHERE " + strings.Join(where, " AND ")
	if q.OrderBy != "" {
		dir := "ASC"
		if q.Desc {
			dir = "DESC"
		}
		sql += " ORDER BY " + path(q.OrderBy) + " " + dir
	}
	return sql, b.params, nil
}

func (b *sqlBuilder) filter(f docstore.Filter) (string, error) {
	if f.Op == docstore.OpOr {
		parts := make([]string, len(f.Any))
		for i, sub := range f.Any {
			s, err := b.filter(sub)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "(" + strings.Join(parts, " OR ") + ")", nil
	}
	v, err := docstore.Normalize(f.Value)
	if err != nil {
		return "", err
	}
	p := path(f.Field)
	switch f.Op {
	case docstore.OpEq:
		return p + " = " + b.param(v), nil
	case docstore.OpNe:
		return p + " != " + b.param(v), nil
	case docstore.OpGt:
		return p + " > " + b.param(v), nil
	case docstore.OpGte:
		return p + " >= " + b.param(v), nil
	case docstore.OpLt:
		return p + " < " + b.param(v), nil
	case docstore.OpLte:
		return p + " <= " + b.param(v), nil
	case docstore.OpIn:
		names := make([]string, len(f.Values))
		for i, x := range f.Values {
			n, err := docstore.Normalize(x)
			if err != nil {
				return "", err
			}
			names[i] = b.param(n)
		}
		return p + " IN (" + strings.Join(names, ", ") + ")", nil
	case docstore.OpContains:
		// LOWER on both sides: the three-argument CONTAINS is not
		// available everywhere the SDK runs.
		return "CONTAINS(LOWER(" + p + "), " + b.param(strings.ToLower(v.(string))) + ")", nil
	case docstore.OpPrefix:
		return "STARTSWITH(" + p + ", " + b.param(v) + ")", nil
	case docstore.OpArrayContains:
		return "ARRAY_CONTAINS(" + p + ", " + b.param(v) + ")", nil
	case docstore.OpArrayPrefix:
		return "EXISTS(SELECT VALUE e FROM e IN " + p + " WHERE STARTSWITH(e, " + b.param(v) + "))", nil
	case docstore.OpDefined:
		if present, _ := v.(bool); present {
			return "IS_DEFINED(" + p + ")", nil
		}
		return "NOT IS_DEFINED(" + p + ")", nil
	}
	return "", docstore.ErrInvalid(fmt.Errorf("cosmos: unknown filter operator %d", f.Op))
}
