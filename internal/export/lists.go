package export

import (
	"context"
	"io"

	"github.com/kanri/kanri/internal/audit"
	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/store"
	"github.com/kanri/kanri/internal/user"
)

// pageSize is how many items an export reads at once.
const pageSize = 500

// Service exports a tenant's lists.
type Service struct {
	store *store.Store
	users *user.Service
	log   *audit.Log
}

// New returns the exports of the lists in st, its users read through
// users and its audit records through log.
func New(st *store.Store, users *user.Service, log *audit.Log) *Service {
	return &Service{store: st, users: users, log: log}
}

// userColumns are the columns of the users' export. Its first five are
// the import's (the roles column aside): an export can be imported again.
var userColumns = []Column[*kanri.User]{
	{"username", func(u *kanri.User) any { return u.Username }},
	{"email", func(u *kanri.User) any { return u.Email }},
	{"displayName", func(u *kanri.User) any { return u.DisplayName }},
	{"status", func(u *kanri.User) any { return userStatus(u) }},
	{"id", func(u *kanri.User) any { return u.ID }},
	{"createdAt", func(u *kanri.User) any { return u.CreatedAt }},
	{"updatedAt", func(u *kanri.User) any { return u.UpdatedAt }},
	{"lastLoginAt", func(u *kanri.User) any { return u.Security.LastLoginAt }},
	{"lockedUntil", func(u *kanri.User) any { return u.Security.LockedUntil }},
	{"twoFactorEnabled", func(u *kanri.User) any { return u.Security.TwoFactorEnabled }},
}

func userStatus(u *kanri.User) string {
	if u.IsActive {
		return "active"
	}
	return "inactive"
}

// Users writes the tenant's users (not the deleted ones), by username.
func (s *Service) Users(ctx context.Context, w io.Writer, f Format, tenantID string) error {
	return Stream(ctx, w, f, userColumns, func(ctx context.Context, cont string) ([]*kanri.User, string, error) {
		return s.users.List(ctx, tenantID, user.ListFilter{Limit: 100, Continuation: cont})
	})
}

// assignment is a role assignment with its user's username.
type assignment struct {
	*kanri.RoleAssignment
	username string
}

var assignmentColumns = []Column[assignment]{
	{"userId", func(a assignment) any { return a.UserID }},
	{"username", func(a assignment) any { return a.username }},
	{"serviceId", func(a assignment) any { return a.ServiceID }},
	{"roleName", func(a assignment) any { return a.RoleName }},
	{"assignedBy", func(a assignment) any { return a.AssignedBy }},
	{"assignedAt", func(a assignment) any { return a.AssignedAt }},
}

// RoleAssignments writes the tenant's role assignments, grouped by user
// (their ids begin with the user's), with each user's username, read a
// page of users at a time.
func (s *Service) RoleAssignments(ctx context.Context, w io.Writer, f Format, tenantID string) error {
	ten := s.store.Tenant(tenantID)
	return Stream(ctx, w, f, assignmentColumns, func(ctx context.Context, cont string) ([]assignment, string, error) {
		ras, next, err := ten.RoleAssignments().Query(ctx, docstore.Query{Limit: pageSize, Continuation: cont})
		if err != nil {
			return nil, "", err
		}
		ids := make([]string, 0, len(ras))
		for _, ra := range ras {
			if len(ids) == 0 || ids[len(ids)-1] != ra.UserID {
				ids = append(ids, ra.UserID)
			}
		}
		users, err := ten.Users().ByIDs(ctx, ids, "")
		if err != nil {
			return nil, "", err
		}
		names := make(map[string]string, len(users))
		for _, u := range users {
			names[u.ID] = u.Username
		}
		out := make([]assignment, len(ras))
		for i, ra := range ras {
			out[i] = assignment{ra, names[ra.UserID]}
		}
		return out, next, nil
	})
}

// file is a file's metadata with its folder's path.
type file struct {
	*kanri.File
	folder string
}

var fileColumns = []Column[file]{
	{"id", func(f file) any { return f.ID }},
	{"name", func(f file) any { return f.Name }},
	{"folderId", func(f file) any { return f.FolderID }},
	{"folderPath", func(f file) any { return f.folder }},
	{"size", func(f file) any { return f.Size }},
	{"contentType", func(f file) any { return f.ContentType }},
	{"sha256", func(f file) any { return f.Checksum }},
	{"uploadedBy", func(f file) any { return f.UploadedBy }},
	{"uploadedAt", func(f file) any { return f.UploadedAt }},
	{"updatedAt", func(f file) any { return f.UpdatedAt }},
	{"trashedAt", func(f file) any { return f.DeletedAt }},
}

// Files writes the metadata of the tenant's files (those in the trash
// too, with when they went there), oldest upload first, with the path of
// each one's folder ("/" at the top), read one query a page.
func (s *Service) Files(ctx context.Context, w io.Writer, f Format, tenantID string) error {
	ten := s.store.Tenant(tenantID)
	return Stream(ctx, w, f, fileColumns, func(ctx context.Context, cont string) ([]file, string, error) {
		fs, next, err := ten.Files().Query(ctx, docstore.Query{OrderBy: "uploadedAt", Limit: pageSize, Continuation: cont})
		if err != nil {
			return nil, "", err
		}
		seen := map[string]bool{}
		var ids []string
		for _, f := range fs {
			if f.FolderID != nil && !seen[*f.FolderID] {
				seen[*f.FolderID] = true
				ids = append(ids, *f.FolderID)
			}
		}
		paths := map[string]string{}
		if len(ids) > 0 {
			folders, err := ten.Folders().ByIDs(ctx, ids, "")
			if err != nil {
				return nil, "", err
			}
			for _, d := range folders {
				paths[d.ID] = d.Path
			}
		}
		out := make([]file, len(fs))
		for i, f := range fs {
			out[i] = file{File: f, folder: "/"}
			if f.FolderID != nil {
				out[i].folder = paths[*f.FolderID] // "" when the folder is gone
			}
		}
		return out, next, nil
	})
}

// auditColumns are the columns of the audit log's export, the console's
// CSV and JSON links alike.
var auditColumns = []Column[*kanri.AuditLog]{
	{"timestamp", func(r *kanri.AuditLog) any { return r.Timestamp }},
	{"action", func(r *kanri.AuditLog) any { return r.Action }},
	{"status", func(r *kanri.AuditLog) any { return r.Status }},
	{"userId", func(r *kanri.AuditLog) any { return r.UserID }},
	{"userName", func(r *kanri.AuditLog) any { return r.UserName }},
	{"resourceType", func(r *kanri.AuditLog) any { return r.Resource.Type }},
	{"resourceId", func(r *kanri.AuditLog) any { return r.Resource.ID }},
	{"resourceName", func(r *kanri.AuditLog) any { return r.Resource.Name }},
	{"changes", func(r *kanri.AuditLog) any { return r.Details.Changes }},
	{"reason", func(r *kanri.AuditLog) any { return r.Details.Reason }},
	{"ipAddress", func(r *kanri.AuditLog) any { return r.Metadata.IPAddress }},
	{"userAgent", func(r *kanri.AuditLog) any { return r.Metadata.UserAgent }},
	{"requestId", func(r *kanri.AuditLog) any { return r.Metadata.RequestID }},
	{"targetTenantId", func(r *kanri.AuditLog) any { return r.Metadata.TargetTenantID }},
}

// Audit writes the tenant's audit records that match filter, newest
// first: in CSV a record's changes are a cell of JSON (empty when there
// are none), in JSON an object. It writes nothing when the actor may not
// use filter (audit.CheckFilter) and returns that error.
func (s *Service) Audit(ctx context.Context, w io.Writer, f Format, tenantID string, filter audit.Filter) error {
	if err := audit.CheckFilter(ctx, tenantID, filter); err != nil {
		return err
	}
	return Stream(ctx, w, f, auditColumns, func(ctx context.Context, cont string) ([]*kanri.AuditLog, string, error) {
		page := filter
		page.Limit, page.Continuation = 1000, cont
		return s.log.Query(ctx, tenantID, page)
	})
}
