package role

import (
	"cmp"
	"slices"

	"github.com/kanri/kanri/internal/kanri"
)

// The plan table: which plan a tenant needs for each service, permission
// and feature (docs/settings.md, "Plans"). It is the one place plans gate
// anything; the services' Usable check, the console's permission check and
// the API's both read it through Catalog.PlanAllows.
//
// A service's offer names its plan (Offer.Plan), which its permissions
// need too; flagPlans holds the tenant features' (kanri.Feature…).
// Anything else is on every plan.
//
//	free      the tenant's users, roles, audit log, domains, settings,
//	          services, files and messaging
//	standard  + the API (api-service, apikeys.*), backups (backup-service,
//	          backups.*) and the usage analytics (advancedReporting)
//	premium   everything standard has (the plan for what is added above it)
//
// The operator's own plan (privileged) allows everything.
var flagPlans = map[string]string{
	kanri.FeatureAdvancedReporting: kanri.PlanStandard,
}

// Plans lists the customer plans from the lowest; a plan allows what
// every lower one does.
var Plans = []string{kanri.PlanFree, kanri.PlanStandard, kanri.PlanPremium}

// rank orders the plans. An unknown plan ranks as the lowest.
func rank(plan string) int {
	if plan == kanri.PlanPrivileged {
		return len(Plans)
	}
	return max(0, slices.Index(Plans, plan))
}

// RequiredPlan returns the lowest plan that allows key (a service id, a
// permission or a kanri.Feature…), or "" when every plan does.
func (c *Catalog) RequiredPlan(key string) string {
	if p, ok := flagPlans[key]; ok {
		return p
	}
	if p, ok := c.plans[key]; ok {
		return p
	}
	return c.plans[c.permService[key]]
}

// PlanAllows reports whether a tenant on plan may use key: a service id,
// a permission or a kanri.Feature….
func (c *Catalog) PlanAllows(plan, key string) bool {
	return PlanIncludes(plan, c.RequiredPlan(key))
}

// PlanIncludes reports whether plan is required or above ("" is every
// plan).
func PlanIncludes(plan, required string) bool { return required == "" || rank(plan) >= rank(required) }

// ForPlan returns the permissions of set that plan allows: what a user may
// do in a tenant on that plan. A permission its plan lacks is gone as if
// the user had been demoted, in the console and for their API keys alike.
// It returns set itself when the plan takes nothing away.
func (c *Catalog) ForPlan(set Set, plan string) Set {
	var out Set
	for p := range set {
		if c.PlanAllows(plan, p) {
			continue
		}
		if out == nil {
			out = make(Set, len(set))
			for q, v := range set {
				out[q] = v
			}
		}
		delete(out, p)
	}
	if out == nil {
		return set
	}
	return out
}

// FeatureInPlan reports whether plan includes a feature of the tenants
// (kanri.Feature…), whatever its flag says.
func FeatureInPlan(plan, feature string) bool { return PlanIncludes(plan, flagPlans[feature]) }

// FeatureOn reports whether a feature of the tenant is on: its flag is on
// and its plan includes it.
func FeatureOn(t *kanri.Tenant, feature string) bool {
	if !FeatureInPlan(t.Plan, feature) {
		return false
	}
	switch feature {
	case kanri.FeatureAdvancedReporting:
		return t.AdvancedReportingOn()
	case kanri.FeatureAPIAccess:
		return t.APIAccessOn()
	case kanri.FeatureTwoFactorAuth:
		return t.TwoFactorAvailable()
	}
	return true
}

// PlanRow is one row of the plan table, for the pages that show it.
type PlanRow struct {
	Key     string // a service id or a kanri.Feature…
	Service bool   // Key is a service's id
	Plan    string
}

// PlanTable returns the plan table's services and features, by key.
func (c *Catalog) PlanTable() []PlanRow {
	out := make([]PlanRow, 0, len(flagPlans)+len(c.plans))
	for k, p := range flagPlans {
		out = append(out, PlanRow{Key: k, Plan: p})
	}
	for k, p := range c.plans {
		out = append(out, PlanRow{Key: k, Service: true, Plan: p})
	}
	slices.SortFunc(out, func(a, b PlanRow) int { return cmp.Compare(a.Key, b.Key) })
	return out
}
