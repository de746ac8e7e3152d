package role

import (
	"cmp"
	"slices"

	"github.com/kanri/kanri/internal/kanri"
)

// The plan table: which plan a tenant needs for each service, permission
// and feature (docs/settings.md, "Plans"). It is the one place plans gate
// anything; the services' Usable check, the console's permission check and
// the API's both read it through PlanAllows.
//
// A service listed needs its plan for itself and for every permission of
// it; a permission or feature listed needs its own. Anything not listed
// is on every plan.
//
//	free      the tenant's users, roles, audit log, domains, settings,
//	          services, files and messaging
//	standard  + the API (api-service, apikeys.*), backups (backup-service,
//	          backups.*) and the usage analytics (advancedReporting)
//	premium   everything standard has (the plan for what is added above it)
//
// The operator's own plan (privileged) allows everything.
var planTable = map[string]string{
	kanri.APIServiceID:             kanri.PlanStandard,
	kanri.BackupServiceID:          kanri.PlanStandard,
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

// permService maps each permission to the service whose roles grant it.
var permService = func() map[string]string {
	m := map[string]string{}
	for _, s := range catalog {
		for _, p := range s.Roles[0].Permissions { // 全体管理者 holds all of them
			m[p] = s.ID
		}
	}
	return m
}()

// RequiredPlan returns the lowest plan that allows key (a service id, a
// permission or a kanri.Feature…), or "" when every plan does.
func RequiredPlan(key string) string {
	if p, ok := planTable[key]; ok {
		return p
	}
	if svc, ok := permService[key]; ok {
		return planTable[svc]
	}
	return ""
}

// PlanAllows reports whether a tenant on plan may use key: a service id,
// a permission or a kanri.Feature….
func PlanAllows(plan, key string) bool {
	req := RequiredPlan(key)
	return req == "" || rank(plan) >= rank(req)
}

// ForPlan returns the permissions of set that plan allows: what a user may
// do in a tenant on that plan. A permission its plan lacks is gone as if
// the user had been demoted, in the console and for their API keys alike.
// It returns set itself when the plan takes nothing away.
func ForPlan(set Set, plan string) Set {
	var out Set
	for p := range set {
		if PlanAllows(plan, p) {
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

// FeatureOn reports whether a feature of the tenant is on: its flag is on
// and its plan includes it.
func FeatureOn(t *kanri.Tenant, feature string) bool {
	if !PlanAllows(t.Plan, feature) {
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
func PlanTable() []PlanRow {
	out := make([]PlanRow, 0, len(planTable))
	for k, p := range planTable {
		_, svc := Find(k, Admin)
		out = append(out, PlanRow{Key: k, Service: svc, Plan: p})
	}
	slices.SortFunc(out, func(a, b PlanRow) int { return cmp.Compare(a.Key, b.Key) })
	return out
}
