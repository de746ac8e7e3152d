package erasure

import (
	"archive/zip"
	"context"
	"encoding/json"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/kanri/kanri/internal/docstore"
	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/files"
	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
)

// Export is a person's data: every document of theirs whose type belongs
// in a person's export, with the fields its type declares (doctype.Type's
// Export), grouped by type and titled in the reader's language.
type Export struct {
	ExportedAt kanri.Time `json:"exportedAt"`
	TenantID   string     `json:"tenantId"`
	UserID     string     `json:"userId"`
	Sections   []Section  `json:"sections"`
}

// Section is the person's documents of one type.
type Section struct {
	Type  string           `json:"type"`
	Title string           `json:"title"`
	Items []map[string]any `json:"items"`
}

// Export returns a person's data in a tenant (GDPR Articles 15 and 20),
// titled in the language of ctx. The export is audited: it hands a
// person's data out.
func (s *Service) Export(ctx context.Context, tenantID, userID string) (*Export, error) {
	if _, err := s.users.Get(ctx, tenantID, userID); err != nil {
		return nil, err
	}
	s.Audit.Change(ctx, tenantID, "user.export", kanri.AuditResource{Type: kanri.AuditUser, ID: userID}, nil, nil)
	sections := map[string]*Section{}
	order := map[string]int{}
	for i, t := range s.Store.Types().Types() {
		if t.Personal.Owner == "id" {
			i = -1 // the person's own document comes first
		}
		order[t.Container+"/"+t.Name] = i
	}
	err := s.scan(ctx, tenantID, func(container string, it docstore.Item, t doctype.Type, doc map[string]any) {
		if len(t.Export) == 0 || !owns(t, doc, userID) {
			return
		}
		key := t.Container + "/" + t.Name
		sec := sections[key]
		if sec == nil {
			sec = &Section{Type: t.Name, Title: i18n.T(ctx, "export.type."+t.Name)}
			sections[key] = sec
		}
		item := map[string]any{"id": it.ID}
		for _, f := range t.Export {
			if v := get(doc, f); v != nil {
				put(item, f, v)
			}
		}
		sec.Items = append(sec.Items, item)
	})
	if err != nil {
		return nil, err
	}
	out := &Export{ExportedAt: kanri.NewTime(s.Now()), TenantID: tenantID, UserID: userID, Sections: []Section{}}
	keys := make([]string, 0, len(sections))
	for k := range sections {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return order[keys[i]] < order[keys[j]] })
	for _, k := range keys {
		out.Sections = append(out.Sections, *sections[k])
	}
	return out, nil
}

// put sets the value at a dotted path of item, making the objects on the
// way.
func put(item map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	m := item
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}

// WriteZip writes a person's data to w as a zip: their export as
// personal-data.json, and the content of every file they uploaded that is
// not in the trash, under files/ (each name led by the file's id, so that
// two files of one name stay apart). A file whose bytes no longer match
// its checksum fails the zip rather than give a wrong copy.
func (s *Service) WriteZip(ctx context.Context, w io.Writer, tenantID, userID string) error {
	x, err := s.Export(ctx, tenantID, userID)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	jw, err := zw.Create("personal-data.json")
	if err != nil {
		return err
	}
	enc := json.NewEncoder(jw)
	enc.SetIndent("", "  ")
	if err := enc.Encode(x); err != nil {
		return err
	}
	for _, sec := range x.Sections {
		if sec.Type != kanri.TypeFile {
			continue
		}
		for _, item := range sec.Items {
			id, _ := item["id"].(string)
			if err := s.zipFile(ctx, zw, tenantID, id); err != nil {
				return err
			}
		}
	}
	return zw.Close()
}

// zipFile adds one file's content to zw, unless it is in the trash.
func (s *Service) zipFile(ctx context.Context, zw *zip.Writer, tenantID, id string) error {
	f, err := s.Store.Tenant(tenantID).Files().Get(ctx, id)
	if kanri.IsCode(err, kanri.ENOTFOUND) {
		return nil
	}
	if err != nil || !f.DeletedAt.IsZero() {
		return err
	}
	fw, err := zw.CreateHeader(&zip.FileHeader{Name: "files/" + f.ID + "-" + path.Base("/"+f.Name), Method: zip.Store, Modified: f.UploadedAt.Time})
	if err != nil {
		return err
	}
	c := s.files.Open(ctx, tenantID, f)
	defer c.Close()
	if _, err := io.Copy(fw, c); err != nil {
		return err
	}
	if c.Failed() {
		return files.ErrDamaged
	}
	return nil
}
