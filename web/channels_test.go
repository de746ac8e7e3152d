package web_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/messaging"
)

// assignMessaging assigns the messaging service to a tenant.
func (e *env) assignMessaging(t testing.TB, tenantID string) {
	t.Helper()
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	if _, err := e.catalog.Assignment(ctx, tenantID, kanri.MessagingServiceID); err == nil {
		return
	}
	if _, _, err := e.catalog.Assign(ctx, tenantID, kanri.AssignmentInput{ServiceID: kanri.MessagingServiceID}); err != nil {
		t.Fatal(err)
	}
}

// userIDOf returns the id of a tenant's user by username or e-mail address.
func (e *env) userIDOf(t testing.TB, tenantID, name string) string {
	t.Helper()
	ctx := context.Background()
	for _, field := range []string{"username", "email"} {
		us, _, err := e.st.Tenant(tenantID).Users().Query(ctx, docstore.Query{Where: []docstore.Filter{docstore.Eq(field, name)}, OrderBy: field, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(us) == 1 {
			return us[0].ID
		}
	}
	t.Fatalf("no user %s in %s", name, tenantID)
	return ""
}

// matrixChannel makes a public channel owned by a user (who need not be
// of the tenant: the operator's staff act in every tenant), with a
// message of theirs and acme's Bob a member, and returns their ids.
func (e *env) matrixChannel(t testing.TB, tenantID, ownerID string, n int64) (string, string) {
	t.Helper()
	e.assignMessaging(t, tenantID)
	ctx := audit.WithActor(context.Background(), audit.Actor{UserID: "system", TenantID: kanri.PrivilegedTenantID})
	owner := messaging.Person{UserID: ownerID, Name: "Owner"}
	c, err := e.config.Messaging.CreateChannel(ctx, tenantID, owner, messaging.ChannelInput{Name: fmt.Sprintf("matrix-%d", n)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.config.Messaging.Join(ctx, tenantID, messaging.Person{UserID: e.acmeBob.ID, Name: "Bob"}, c.ID); err != nil {
		t.Fatal(err)
	}
	m, err := e.config.Messaging.Post(ctx, tenantID, owner, c.ID, "matrix", nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID, m.ID
}
