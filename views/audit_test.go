package views

import (
	"context"
	"testing"

	"github.com/kanri/kanri/internal/i18n"
	"github.com/kanri/kanri/internal/kanri"
)

func TestFormatValue(t *testing.T) {
	// Values as a record read back from the store holds them.
	en := i18n.WithLang(context.Background(), "en")
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"text", "read", "read"},
		{"empty text", "", `""`},
		{"number", 1.5, "1.5"},
		{"whole number", 100.0, "100"},
		{"flag", true, "Yes"},
		{"nothing", nil, "—"},
		{"list", []any{"read", "write"}, "read, write"},
		{"empty list", []any{}, "—"},
		{"list of numbers", []any{1.0, 2.0}, "1, 2"},
		{"object", map[string]any{"quota": 10.0, "bucket": "b"}, "bucket: b; quota: 10"},
		{"nested object", map[string]any{"features": map[string]any{"forecast": false, "pipeline": true}, "seats": 5.0},
			"features.forecast: No; features.pipeline: Yes; seats: 5"},
		{"declared setting", map[string]any{"maxFileSize": "10MB"}, "Maximum file size: 10MB"},
		{"no settings", map[string]any(nil), "—"},
		{"empty settings", map[string]any{}, "—"},
		{"empty nested settings", map[string]any{"features": map[string]any{}}, "—"},
		{"Go map", map[string]map[string]bool{"features": {"pipeline": true}}, "features.pipeline: Yes"},
	}
	for _, tt := range tests {
		if got := formatValue(en, tt.in); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestChanges(t *testing.T) {
	en := i18n.WithLang(context.Background(), "en")
	ja := i18n.WithLang(context.Background(), "ja")
	c := func(before, after any) kanri.Change { return kanri.Change{Before: before, After: after} }
	rec := func(reason string, ch map[string]kanri.Change) *kanri.AuditLog {
		return &kanri.AuditLog{Details: kanri.AuditDetails{Changes: ch, Reason: reason}}
	}
	of := func(typ string, r *kanri.AuditLog) *kanri.AuditLog { r.Resource.Type = typ; return r }
	tests := []struct {
		name string
		ctx  context.Context
		r    *kanri.AuditLog
		want string
	}{
		{"user created: bookkeeping left out", en, rec("", map[string]kanri.Change{
			"username": c(nil, "gina"), "email": c(nil, "g@acme.example"), "displayName": c(nil, ""),
			"isActive": c(nil, true), "locked": c(nil, false), "deleted": c(nil, false),
			"passwordChangedAt": c(nil, "2026-11-23T10:00:00Z"),
		}), "Email: set to g@acme.example; Username: set to gina"},
		{"deactivated", en, rec("", map[string]kanri.Change{"isActive": c(true, false)}), "Deactivated"},
		{"deactivated, in Japanese", ja, rec("", map[string]kanri.Change{"isActive": c(true, false)}), "無効化"},
		{"password changed", en, rec("", map[string]kanri.Change{
			"passwordChangedAt": c("2026-11-01T10:00:00Z", "2026-11-23T10:00:00Z"),
		}), "Password changed"},
		{"renamed", en, rec("", map[string]kanri.Change{"displayName": c("A", "B")}), "Display name: A → B"},
		{"deleted", en, rec("", map[string]kanri.Change{"deleted": c(false, true), "isActive": c(true, false)}), "Deleted; Deactivated"},
		{"role by its label", en, rec("", map[string]kanri.Change{
			"serviceId": c(nil, "auth-service"), "roleName": c(nil, "閲覧者"),
		}), "Role: set to Viewer; Service: set to " + ServiceName(en, "auth-service", "auth-service")},
		{"role in Japanese", ja, rec("", map[string]kanri.Change{"roleName": c(nil, "閲覧者")}), "ロール: 閲覧者 に設定"},
		{"assignment without settings", en, rec("", map[string]kanri.Change{
			"status": c(nil, "active"), "config": c(nil, ""), "expiresAt": c(nil, ""),
		}), "Status: set to Active"},
		{"nested settings, setting by setting", en, rec("", map[string]kanri.Change{"config": c(
			map[string]any{"features": map[string]any{"forecast": false, "pipeline": true}},
			map[string]any{"features": map[string]any{"forecast": true, "pipeline": true}, "seats": 5.0},
		)}), "Settings: features.forecast: No → Yes; Settings: seats: set to 5"},
		{"suspended, in Japanese", ja, rec("", map[string]kanri.Change{"status": c("active", "suspended")}), "状態: 有効 → 一時停止中"},
		{"reason code", ja, rec(kanri.ReasonWrongPassword, nil), "パスワードの誤り"},
		{"reason of an older record", ja, rec("wrong password", nil), "パスワードの誤り"},
		{"tenant status reason of an older record", en, rec("organisation suspended", nil), "Organisation Suspended"},
		{"tenant status reason", ja, rec(kanri.ReasonTenantInactive+":suspended", nil), "組織が一時停止中"},
		{"other reason as it is", en, rec("imported by hand", nil), "imported by hand"},
		{"user deleted: the count of its role assignments left out", en, rec("", map[string]kanri.Change{
			"deleted": c(false, true), "isActive": c(true, false), "roleAssignments": c(nil, -5.0),
		}), "Deleted; Deactivated"},
		{"a folder by its path", en, rec("", map[string]kanri.Change{"folder": c("/", "/Docs")}), "Folder: / → /Docs"},
		{"a folder by its id, in an older record", en, rec("", map[string]kanri.Change{"folderId": c(nil, "folder_1f2e")}), "Folder ID: set to folder_1f2e"},
		{"files counted", ja, rec("", map[string]kanri.Change{"files": c(3.0, nil), "folders": c(1.0, nil), "path": c("/Docs", nil)}), "ファイル数: 3; フォルダー数: 1; パス: 削除（変更前 /Docs）"},
		{"a plan by its word", ja, rec("", map[string]kanri.Change{"plan": c("standard", "free")}), "プラン: スタンダード → フリー"},
		{"settings by their words", ja, rec("", map[string]kanri.Change{"settings": c(
			map[string]any{"locale": "", "features": map[string]any{"twoFactorEnforcement": "off"}},
			map[string]any{"locale": "ja-JP", "features": map[string]any{"twoFactorEnforcement": "admins"}},
		)}), "二要素認証の必須対象: " + i18n.Translate("ja", "settings.two_factor_off") + " → 管理者; 既定の言語: 日本語 に設定"},
		{"a domain's state", ja, of(kanri.AuditDomain, rec("", map[string]kanri.Change{"state": c("verified", "missing")})),
			"状態: 確認済み → " + i18n.Translate("ja", "domains.state_missing")},
		{"a channel member's role", ja, of(kanri.AuditChannelMember, rec("", map[string]kanri.Change{"role": c("member", "owner")})),
			i18n.Translate("ja", "audit.field.role") + ": " + i18n.Translate("ja", "channels.role_member") + " → オーナー"},
		{"backup parts", ja, rec("", map[string]kanri.Change{"parts": c(nil, "users,audit")}), i18n.Translate("ja", "audit.field.parts") + ": ユーザーとロール, 監査ログ に設定"},
		{"a flag recorded as text", ja, rec("", map[string]kanri.Change{"isPrivate": c("false", "true")}), i18n.Translate("ja", "audit.field.isPrivate") + ": いいえ → はい"},
		{"an unknown code as it is", en, rec("", map[string]kanri.Change{"plan": c(nil, "platinum")}), "Plan: set to platinum"},
	}
	for _, tt := range tests {
		if got := changes(tt.ctx, tt.r); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestEveryAuditResourceTypeHasALabel(t *testing.T) {
	for _, typ := range kanri.AuditResourceTypes() {
		for _, lang := range []string{"en", "ja"} {
			ctx := i18n.WithLang(context.Background(), lang)
			if got := ResourceType(ctx, typ); got == typ && lang == "ja" || !i18n.Has("resource."+typ) {
				t.Errorf("%s in %s: got %q, want a label from the catalog", typ, lang, got)
			}
		}
	}
}
