// Package features is the list of Kanri's features, which the composition
// root (cmd/kanri) builds the server from, and the tests build the same
// server from. A feature declares what it owns and contributes in one
// Feature value, kept in a file of its own here: its containers and
// document types, the services of the catalog it offers with their roles
// and permissions, and how it starts over the core services (its
// one-time upgrades, workers, console pages and API operations). The store's
// containers, the backups' parts, the role catalog, the upgrade runner, the
// workers, the routes (and so the permission matrix, the CSRF walk and the
// OpenAPI document) all loop over the list; adding a feature adds its
// file and one line to All (docs/architecture.md, "Features").
package features

import (
	"slices"
	"sync"

	"github.com/kanri/kanri/internal/app"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/internal/wiring"
	"github.com/kanri/kanri/web"
)

// All returns Kanri's features, in the order their upgrades run and their
// routes are registered. A new feature is one line here.
func All() []Feature {
	return []Feature{
		core,
		peopleFeature,
		operatorFeature,
		organisationFeature,
		filesFeature,
		messagingFeature,
		backupsFeature,
		privacyFeature,
		migrationsFeature,
		archivesFeature,
		supportFeature,
		ssoFeature,
		transferFeature,
		webhooksFeature,
	}
}

// Feature is one feature of Kanri as the composition root sees it: what
// it declares, read before anything runs, and how it starts.
type Feature struct {
	// Name names the feature in errors and in the checks of the
	// declarations.
	Name string
	// Docs is its page under docs/, where the table of its document types
	// is generated from Types.
	Docs string
	// Containers are the containers it owns; Types the document types it
	// owns, in its containers or in another feature's.
	Containers []doctype.Container
	Types      []doctype.Type
	// Offers are the services of the catalog it provides, with their roles
	// and permissions.
	Offers []role.Offer
	// Start returns what it runs and serves, over the core services, once
	// the store is open (nil: nothing).
	Start func(*wiring.Set) Parts
}

// Parts are what a started feature runs and serves.
type Parts struct {
	// Work are its one-time upgrades and its workers.
	Work []app.Feature
	// HTTP is its console pages and its API operations.
	HTTP web.Feature
}

// Schema returns the document types of every feature, in their
// containers: what the store opens with.
var Schema = sync.OnceValue(func() *doctype.Set {
	var containers []doctype.Container
	var types [][]doctype.Type
	for _, f := range All() {
		containers = append(containers, f.Containers...)
		types = append(types, f.Types)
	}
	return doctype.MustSet(containers, types...)
})

// Specs returns the store's containers with the indexes of every type.
func Specs() []docstore.Spec { return Schema().Specs() }

// Roles returns the catalog of the services every feature offers.
var Roles = sync.OnceValue(func() *role.Catalog {
	var offers []role.Offer
	for _, f := range All() {
		offers = append(offers, f.Offers...)
	}
	return role.NewCatalog(offers...)
})

// Start starts every feature over the core services: their upgrades and
// workers, in the list's order, and what they serve over HTTP.
func Start(svcs *wiring.Set) (work []app.Feature, http []web.Feature) {
	for _, f := range All() {
		if f.Start == nil {
			continue
		}
		p := f.Start(svcs)
		work = append(work, p.Work...)
		http = append(http, p.HTTP)
	}
	return work, http
}

// slicesOf joins the document types of several packages.
func slicesOf(types ...[]doctype.Type) []doctype.Type { return slices.Concat(types...) }
