package api

import (
	"sync"
	"time"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// GrantTTL is how long an instance keeps what authorising an API call
// needs (the key, its tenant, its creator's rights and the api-service
// assignment) before reading it again. A change made on the instance
// takes effect at its next call (the instance forgets what the change
// touched); a change made on another instance, within this time.
const GrantTTL = 5 * time.Second

// maxGrants bounds the grants an instance keeps: more keys than this in
// use within GrantTTL cost reads again, never memory.
const maxGrants = 10_000

// Grant is what the calls of one key need besides the request: read
// once, kept for GrantTTL and checked again at every call against the
// clock (the key's expiry and rotation grace, the assignment's expiry).
// It is shared by concurrent calls and never changed once kept.
type Grant struct {
	key    *kanri.APIKey
	tenant *kanri.Tenant
	// home is the tenant of the key's creator: the key's, or the
	// operator's for a key its staff made.
	home string
	// perms are what the creator may do in the key's tenant, or permsErr
	// says why they may do nothing (their account is gone).
	Perms    role.Set
	permsErr error
	// creatorName is what people call the key's creator: the sender's
	// name of the messages the key posts.
	CreatorName string
	// assignment is the tenant's api-service assignment (nil when there is
	// none), and service the api-service itself.
	assignment *kanri.ServiceAssignment
	service    *kanri.Service
	// settings are the tenant's API settings: the origins whose pages
	// may read the answers (CORS).
	settings *kanri.APISettings
	at       time.Time // when it was read
}

// grantCache keeps apiGrants by the hash of the key's secret (never the
// secret itself).
type grantCache struct {
	mu  sync.Mutex
	by  map[string]*Grant
	gen uint64 // counts forgets; a grant read across one is not kept
}

// get returns the grant of a hash read within GrantTTL of now.
func (c *grantCache) get(hash string, now time.Time) (*Grant, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.by[hash]
	if !ok || now.Before(g.at) || now.Sub(g.at) >= GrantTTL {
		return nil, false
	}
	return g, true
}

// generation returns the number of forgets so far; a grant read after it
// is kept only if nothing was forgotten meanwhile, lest a read that began
// before a change keep its outcome after the change was heard of.
func (c *grantCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put keeps g, read since generation gen, unless a forget came between.
// A full cache first drops what has expired, then any grant.
func (c *grantCache) put(hash string, g *Grant, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.by == nil {
		c.by = map[string]*Grant{}
	}
	if _, ok := c.by[hash]; !ok && len(c.by) >= maxGrants {
		for h, old := range c.by {
			if g.at.Sub(old.at) >= GrantTTL || g.at.Before(old.at) {
				delete(c.by, h)
			}
		}
		for h := range c.by {
			if len(c.by) < maxGrants {
				break
			}
			delete(c.by, h)
		}
	}
	c.by[hash] = g
}

// forget drops the grants a change in tenantID may have made stale: those
// of its keys, and of keys whose creator belongs to it. An empty
// tenantID drops every grant.
func (c *grantCache) forget(tenantID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for h, g := range c.by {
		if tenantID == "" || g.key.TenantID == tenantID || g.home == tenantID {
			delete(c.by, h)
		}
	}
}

// heard forgets what an audited change may have made stale: a change of a
// key, a user (deactivated, deleted), a role assignment, a service
// assignment or a tenant forgets its tenant's grants; a change of the
// service catalog, every grant.
func (c *grantCache) heard(e audit.Entry) {
	switch e.Resource.Type {
	case "APIKey", "User", "RoleAssignment", "ServiceAssignment", "Tenant":
		c.forget(e.TenantID)
	case "Service":
		c.forget("")
	}
}
