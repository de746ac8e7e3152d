package audit

import (
	"net/url"
	"time"

	"github.com/kanri/kanri/internal/kanri"
)

// ParseFilter reads the filters of the audit page and the API from a
// query: action, user, resource, and from and to as dates (YYYY-MM-DD)
// that are whole days of loc, to inclusive. The audit page's days are
// the tenant's time zone's, the zone its times are shown in; the API's
// are UTC. What cannot be read is in the fields returned.
func ParseFilter(q url.Values, loc *time.Location) (Filter, kanri.Fields) {
	f := Filter{Action: q.Get("action"), User: q.Get("user"), ResourceType: q.Get("resource")}
	errs := kanri.Fields{}
	if v := q.Get("from"); v != "" {
		d, err := time.ParseInLocation(time.DateOnly, v, loc)
		if err != nil {
			errs["from"] = "validation.date"
		}
		f.From = d
	}
	if v := q.Get("to"); v != "" {
		d, err := time.ParseInLocation(time.DateOnly, v, loc)
		if err != nil {
			errs["to"] = "validation.date"
		}
		f.To = d.AddDate(0, 0, 1)
	}
	if len(errs) == 0 && !f.From.IsZero() && !f.To.IsZero() && !f.To.After(f.From) {
		errs["to"] = "validation.date_order"
	}
	return f, errs
}
