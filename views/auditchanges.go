package views

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
	"github.com/kanri/kanri/internal/role"
)

// fieldView says how the audit page's Changes column shows one recorded
// field that is not a plain value.
type fieldView struct {
	// hidden fields are bookkeeping: never shown.
	hidden bool
	// on and off are the catalog keys of the words for a flag that became
	// true or false ("Deactivated"); def is its value on creation, which
	// goes unsaid.
	on, off string
	def     bool
	// event is the catalog key of the word for a field whose change is an
	// event ("Password changed"); its first value, on creation, goes
	// unsaid.
	event string
	// count fields say how many things an action took along (the files
	// of a deleted folder): "Files: 3", whichever side holds the number.
	count bool
}

// fieldViews is the one list of the recorded fields that the Changes
// column shows in words or leaves out; any other field is shown as
// "Label: before → after", its label "audit.field.<name>" when the catalog
// has one.
var fieldViews = map[string]fieldView{
	"isActive":          {on: "audit.activated", off: "audit.deactivated", def: true},
	"locked":            {on: "audit.locked", off: "audit.unlocked"},
	"deleted":           {on: "audit.deleted", off: "audit.restored"},
	"verified":          {on: "audit.verified", off: "audit.unverified"},
	"passwordChangedAt": {event: "audit.password_changed"},
	"keyPrefix":         {event: "audit.key_replaced"},
	// A user's deletion recorded the role assignments it removed as a
	// negative number "after", a counter's delta rather than a value.
	"roleAssignments": {hidden: true},
	"files":           {count: true},
	"folders":         {count: true},
}

// valueWords are the recorded fields whose values are codes, by the start
// of the catalog keys of their words ("plan." + "standard": "Standard"), a
// resource type's own field under "Type/field"; a code without a word is
// shown as it is. A list, or a text of comma-separated codes, is shown
// code by code.
var valueWords = map[string]string{
	"plan":                                   "plan.",
	"status":                                 "status.",
	"state":                                  "status.",
	kanri.AuditDomain + "/state":             "domains.state_",
	kanri.AuditChannelMember + "/role":       "channels.role_",
	"target":                                 "backups.part_",
	"parts":                                  "backups.part_",
	"settings.locale":                        "settings.locale_",
	"settings.features.twoFactorEnforcement": "settings.two_factor_",
}

// changes renders an audit record's changes as text in the reader's
// language, one part per change: a word for what happened ("Deactivated",
// "Password changed"), "Label: before → after", "Label: set to after" and
// "Label: cleared (was before)". A settings object is compared setting by
// setting, each named by its dotted path. Bookkeeping (see fieldViews) is
// left out, and so is an empty value on creation. The record's reason
// follows.
func changes(ctx context.Context, r *kanri.AuditLog) string {
	keys := make([]string, 0, len(r.Details.Changes))
	for k := range r.Details.Changes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	typ := r.Resource.Type
	var parts []string
	for _, k := range keys {
		c := r.Details.Changes[k]
		if v, ok := fieldViews[k]; ok {
			if s := v.describe(ctx, k, c); s != "" {
				parts = append(parts, s)
			}
			continue
		}
		before, after := flatten(k, c.Before), flatten(k, c.After)
		paths := make([]string, 0, len(before)+len(after))
		for p := range after {
			paths = append(paths, p)
		}
		for p := range before {
			if _, ok := after[p]; !ok {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, p := range paths {
			b, a := before[p], after[p]
			if fmt.Sprint(b) == fmt.Sprint(a) || (empty(b) && empty(a)) || (c.Before == nil && empty(a)) {
				continue
			}
			label := fieldLabel(ctx, p)
			switch {
			case empty(b):
				parts = append(parts, T(ctx, "audit.set_to", label, fieldValue(ctx, typ, p, a)))
			case empty(a):
				parts = append(parts, T(ctx, "audit.cleared", label, fieldValue(ctx, typ, p, b)))
			default:
				parts = append(parts, label+": "+fieldValue(ctx, typ, p, b)+" → "+fieldValue(ctx, typ, p, a))
			}
		}
	}
	if r.Details.Reason != "" {
		parts = append(parts, auditReason(ctx, r.Details.Reason))
	}
	return strings.Join(parts, "; ")
}

// describe returns the word for a change of a field shown in words, or ""
// when it goes unsaid.
func (v fieldView) describe(ctx context.Context, field string, c kanri.Change) string {
	switch {
	case v.hidden:
		return ""
	case v.count:
		n := c.After
		if empty(n) {
			n = c.Before
		}
		if empty(n) {
			return ""
		}
		return fieldLabel(ctx, field) + ": " + formatValue(ctx, n)
	case v.event != "":
		if empty(c.Before) || empty(c.After) {
			return ""
		}
		return T(ctx, v.event)
	}
	a, _ := c.After.(bool)
	if c.Before == nil && a == v.def {
		return ""
	}
	if a {
		return T(ctx, v.on)
	}
	return T(ctx, v.off)
}

// empty reports whether a recorded value holds nothing.
func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// flatten returns the leaves of a recorded value by their dotted paths
// under name: a value that is not an object is its own leaf, and an empty
// (or nil) object has none.
func flatten(name string, v any) map[string]any {
	out := map[string]any{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			if v != nil {
				out[path] = v
			}
			return
		}
		for k, item := range m { // an empty object has no leaves
			walk(path+"."+k, item)
		}
	}
	walk(name, v)
	return out
}

// fieldLabel names a recorded field, or a setting by its dotted path, in
// the reader's language when the catalog knows it.
func fieldLabel(ctx context.Context, path string) string {
	if i18n.Has("audit.field." + path) {
		return T(ctx, "audit.field."+path)
	}
	if rest, ok := strings.CutPrefix(path, "config."); ok {
		return T(ctx, "audit.field.config") + ": " + settingLabel(ctx, rest)
	}
	return path
}

// settingLabel names a setting by its dotted path: a declared setting by
// its label.
func settingLabel(ctx context.Context, path string) string {
	return translated(ctx, "config."+path, path)
}

// fieldValue shows a recorded value of a field of a resource of type typ
// in the reader's language: a role by its label, a service by its name, a
// code by its word (valueWords).
func fieldValue(ctx context.Context, typ, path string, v any) string {
	if s, ok := v.(string); ok {
		switch path {
		case "roleName":
			if key, ok := role.KeyOf(s); ok {
				return RoleName(ctx, key, s)
			}
		case "serviceId":
			return ServiceName(ctx, s, s)
		}
	}
	prefix, ok := valueWords[typ+"/"+path]
	if !ok {
		prefix, ok = valueWords[path]
	}
	if !ok {
		return formatValue(ctx, v)
	}
	switch v := v.(type) {
	case string:
		if v == "" {
			return formatValue(ctx, v)
		}
		codes := strings.Split(v, ",")
		for i, code := range codes {
			codes[i] = translated(ctx, prefix+strings.TrimSpace(code), strings.TrimSpace(code))
		}
		return strings.Join(codes, ", ")
	case []any:
		items := make([]any, len(v))
		for i, item := range v {
			if code, ok := item.(string); ok {
				items[i] = translated(ctx, prefix+code, code)
			} else {
				items[i] = item
			}
		}
		return formatValue(ctx, items)
	}
	return formatValue(ctx, v)
}

// formatValue shows one recorded value by its type: text as it is, a
// number in digits, a flag as yes or no, a list as its items separated by
// commas ("a, b") and an object as its settings (see settingsText).
func formatValue(ctx context.Context, v any) string {
	switch v := v.(type) {
	case string:
		switch v {
		case "":
			return "\"\""
		case "true", "false": // a flag recorded as text
			return formatValue(ctx, v == "true")
		}
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		if v {
			return T(ctx, "common.yes")
		}
		return T(ctx, "common.no")
	case nil:
		return "—"
	case []any:
		if len(v) == 0 {
			return "—"
		}
		items := make([]string, len(v))
		for i, item := range v {
			items[i] = formatValue(ctx, item)
		}
		return strings.Join(items, ", ")
	case []string:
		if len(v) == 0 {
			return "—"
		}
		return strings.Join(v, ", ")
	case map[string]any:
		return settingsText(ctx, v)
	}
	// A value of another type is shown as its JSON would be read back.
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var back any
	if json.Unmarshal(b, &back) != nil {
		return string(b)
	}
	if _, again := back.(string); again {
		return back.(string)
	}
	return formatValue(ctx, back)
}

// A Setting is one leaf of a settings object: its dotted path, its label
// and its value formatted by type.
type Setting struct {
	Path, Label, Value string
}

// Settings returns the leaves of a settings object by their dotted paths
// ("features.forecast"), in order of path.
func Settings(ctx context.Context, c map[string]any) []Setting {
	leaves := flatten("", c)
	out := make([]Setting, 0, len(leaves))
	for p, v := range leaves {
		p = strings.TrimPrefix(p, ".")
		out = append(out, Setting{Path: p, Label: settingLabel(ctx, p), Value: formatValue(ctx, v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// settingsText writes a settings object on one line: "label: value",
// separated by semicolons, nested settings by their dotted paths.
func settingsText(ctx context.Context, c map[string]any) string {
	s := Settings(ctx, c)
	if len(s) == 0 {
		return "—"
	}
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = x.Label + ": " + x.Value
	}
	return strings.Join(parts, "; ")
}

// legacyReasons are the English reasons that sign-in records stored
// before they stored codes: they are shown as the codes are.
var legacyReasons = map[string]string{
	"unknown user or organisation": kanri.ReasonUnknownUser,
	"account locked":               kanri.ReasonAccountLocked,
	"wrong password":               kanri.ReasonWrongPassword,
	"too many failed sign-ins":     kanri.ReasonTooManyFailed,
	"user inactive":                kanri.ReasonUserInactive,
	"password reset or user deactivated during sign-in": kanri.ReasonChangedDuring,
}

// auditReason shows a record's reason in the reader's language: a code
// (kanri.Reason…) or an English reason of an older record by its catalog
// text, anything else as it is.
func auditReason(ctx context.Context, reason string) string {
	if code, ok := legacyReasons[reason]; ok {
		reason = code
	}
	if status, ok := strings.CutPrefix(reason, "organisation "); ok {
		reason = kanri.ReasonTenantInactive + ":" + status
	}
	if status, ok := strings.CutPrefix(reason, kanri.ReasonTenantInactive+":"); ok {
		return T(ctx, "audit.reason.tenant_inactive", translated(ctx, "status."+status, status)) // the key of kanri.ReasonTenantInactive, which takes the status
	}
	if provider, ok := strings.CutPrefix(reason, "sso:"); ok {
		return T(ctx, "audit.reason.sso", provider) // a sign-in with the tenant's provider of that name
	}
	if why, ok := strings.CutPrefix(reason, "sso_refused:"); ok {
		return T(ctx, "audit.reason.sso_refused", why)
	}
	return translated(ctx, "audit.reason."+reason, reason)
}
