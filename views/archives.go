package views

import (
	"context"
	"fmt"
	"time"

	"github.com/kanri/kanri/internal/archive"
)

// recordWhen is when an archived record happened.
func recordWhen(ctx context.Context, r archive.Record) string {
	for _, f := range []string{"timestamp", "sentAt"} {
		if v, ok := r.Doc[f].(string); ok {
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				return WhenIn(t, ZoneOf(ctx))
			}
		}
	}
	return ""
}

// recordSummary says in a line what an archived record holds: an audit
// record's action and resource, a message's sender and text.
func recordSummary(r archive.Record) string {
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	if a := str(r.Doc, "action"); a != "" {
		res, _ := r.Doc["resource"].(map[string]any)
		return fmt.Sprintf("%s · %s · %s %s", str(r.Doc, "userName"), a, str(res, "type"), str(res, "name"))
	}
	return fmt.Sprintf("%s: %s", str(r.Doc, "senderName"), str(r.Doc, "content"))
}
