package features

import (
	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/cosmos"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/schedule"
	"github.com/kanri/kanri/internal/upgrade"
)

// core is what every feature stands on: the audit trail, the records of
// one-time upgrades, the scheduler's claims and
// leases, and the events the Cosmos DB driver keeps for other instances.
var core = Feature{
	Name:       "core",
	Docs:       "architecture.md",
	Containers: []doctype.Container{audit.Container},
	Types:      slicesOf(upgrade.DocTypes, schedule.DocTypes, cosmos.DocTypes, audit.DocTypes),
}
