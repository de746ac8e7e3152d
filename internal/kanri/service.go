package kanri

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Service is an entry of the system-wide service catalog
// (docs/data-model.md, "Services"). It lives in the _system partition; its
// id is the service id.
type Service struct {
	Doc
	Name           string            `json:"name"`
	Description    string            `json:"description"`
	Version        string            `json:"version"`
	BaseURL        string            `json:"baseUrl"`
	RoleEndpoint   string            `json:"roleEndpoint"`
	HealthEndpoint string            `json:"healthEndpoint"`
	IsActive       bool              `json:"isActive"`
	Metadata       map[string]string `json:"metadata,omitempty"`
	CreatedAt      Time              `json:"createdAt"`
	UpdatedAt      Time              `json:"updatedAt"`
}

// Health states of a service.
const (
	HealthUp      = "up"
	HealthDown    = "down"
	HealthUnknown = "unknown" // never checked, or nothing to check (no baseUrl)
)

// TypeServiceHealth is the type of a service's last health check, kept in
// the _system partition of the service-setting container apart from the
// service itself, so that checks never make an operator's edit stale. Its
// id is "health_" + the service id.
const TypeServiceHealth = "service_health"

// ServiceHealth is the result of the last health check of a service.
type ServiceHealth struct {
	Doc
	ServiceID string `json:"serviceId"`
	Status    string `json:"status"`
	// Detail says why a service is down: the HTTP status or the error.
	Detail    string `json:"detail,omitempty"`
	CheckedAt Time   `json:"checkedAt"`
	// Since is when the service entered its current state.
	Since Time `json:"since"`
}

// ServiceHealthID returns the id of a service's health document.
func ServiceHealthID(serviceID string) string { return "health_" + serviceID }

// Service assignment statuses (docs/data-model.md, "Services").
const (
	AssignmentActive    = "active"
	AssignmentSuspended = "suspended"
	AssignmentExpired   = "expired"
)

// ServiceAssignment makes a service available to a tenant
// (docs/data-model.md, "Services"). There is at most one per tenant and
// service: its id is AssignmentID.
type ServiceAssignment struct {
	Doc
	ServiceID   string         `json:"serviceId"`
	Status      string         `json:"status"`
	Config      map[string]any `json:"config,omitempty"`
	AssignedBy  string         `json:"assignedBy"`
	AssignedAt  Time           `json:"assignedAt"`
	ActivatedAt Time           `json:"activatedAt"`
	ExpiresAt   Time           `json:"expiresAt"`
	UpdatedAt   Time           `json:"updatedAt"`
}

// AssignmentID returns the id of a tenant's assignment of a service.
func AssignmentID(tenantID, serviceID string) string {
	return "assignment_" + tenantID + "_" + serviceID
}

// StatusAt returns the assignment's status at now: an assignment past its
// expiresAt reads as expired whatever is stored, without waiting for a job.
func (a *ServiceAssignment) StatusAt(now time.Time) string {
	if a.Status != AssignmentExpired && !a.ExpiresAt.IsZero() && !now.Before(a.ExpiresAt.Time) {
		return AssignmentExpired
	}
	return a.Status
}

// Service usage metrics (docs/data-model.md, "Services"): counts of calls
// and byte amounts.
const (
	MetricAPICalls    = "apiCalls"
	MetricStorageUsed = "storageUsed"
	MetricBandwidth   = "bandwidth"
)

// ServiceUsage is one tenant's use of one service in one month
// (docs/data-model.md, "Services"). Metrics hold numbers: call counts, and
// byte amounts in bytes (shown as sizes such as 85GB).
type ServiceUsage struct {
	Doc
	ServiceID   string       `json:"serviceId"`
	Period      string       `json:"period"`
	Metrics     UsageMetrics `json:"metrics"`
	LastUpdated Time         `json:"lastUpdated"`
}

// UsageMetrics are the figures of a month's usage. Kanri writes numbers; it
// also reads sizes written as strings ("85GB"), as the data model's example
// shows them (docs/data-model.md, "Services").
type UsageMetrics map[string]int64

// UnmarshalJSON reads numbers and size strings; a value that is neither is
// left out rather than making the whole document unreadable.
func (m *UsageMetrics) UnmarshalJSON(b []byte) error {
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = UsageMetrics{}
	for k, v := range raw {
		switch v := v.(type) {
		case float64:
			(*m)[k] = int64(v)
		case string:
			if n, err := ParseSize(v); err == nil {
				(*m)[k] = n
			} else if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				(*m)[k] = n
			}
		}
	}
	return nil
}

// MovedID returns the id a document of type typ with id id has once it
// moves from tenant from to tenant to (a restore into a new tenant):
// the ids of assignments and of usage embed their tenant's id, every
// other id stays as it is.
func MovedID(typ, id, from, to string) string {
	switch typ {
	case TypeServiceAssignment:
		if rest, ok := strings.CutPrefix(id, "assignment_"+from+"_"); ok {
			return "assignment_" + to + "_" + rest
		}
	case TypeServiceUsage:
		// usage_{YYYYMM}_{tenant}_{service}
		if month, rest, ok := strings.Cut(strings.TrimPrefix(id, "usage_"), "_"); ok {
			if svc, ok := strings.CutPrefix(rest, from+"_"); ok {
				return "usage_" + month + "_" + to + "_" + svc
			}
		}
	}
	return id
}

// UsageID returns the id of a tenant's usage of a service in the month of t
// (usage_{YYYYMM}_{tenant}_{service}:
// docs/data-model.md, "Ids and uniqueness").
func UsageID(t time.Time, tenantID, serviceID string) string {
	return "usage_" + t.UTC().Format("200601") + "_" + tenantID + "_" + serviceID
}

// Period returns the month of t as the data model writes it: 2026-01
// (docs/data-model.md, "Common fields").
func Period(t time.Time) string { return t.UTC().Format("2006-01") }

// sizeUnits are the units of sizes, in bytes: binary multiples, as storage
// quotas are usually meant. Settings are written with the data model's
// suffix (suffix: "10MB"; docs/data-model.md, "Services"); sizes shown for
// reading carry the IEC name that says they are binary (iec: "10 MiB").
var sizeUnits = []struct {
	suffix, iec string
	bytes       int64
}{{"TB", "TiB", 1 << 40}, {"GB", "GiB", 1 << 30}, {"MB", "MiB", 1 << 20}, {"KB", "KiB", 1 << 10}, {"B", "B", 1}}

// ParseSize reads a size such as "100GB", "10 MB", "512KB" or "10 MiB"
// (units B, KB, MB, GB, TB, binary multiples, or their IEC names; case and
// spaces ignored) into bytes.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	for _, u := range sizeUnits {
		num, ok := strings.CutSuffix(t, u.suffix)
		if !ok {
			num, ok = strings.CutSuffix(t, strings.ToUpper(u.iec))
		}
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n < 0 || n > (1<<62)/u.bytes {
			break
		}
		return n * u.bytes, nil
	}
	return 0, fmt.Errorf("%q is not a size such as 100GB or 10MB", s)
}

// FormatSize writes bytes in the largest unit that divides them exactly
// (10MB, 1536KB), the form sizes are stored in.
func FormatSize(n int64) string {
	for _, u := range sizeUnits {
		if n >= u.bytes && n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// HumanSize writes bytes for reading, rounded to one decimal, with the
// IEC name of the binary unit: 1.5 GiB.
func HumanSize(n int64) string {
	for _, u := range sizeUnits[:4] {
		if n >= u.bytes {
			v := float64(n) / float64(u.bytes)
			return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + u.iec
		}
	}
	return strconv.FormatInt(n, 10) + " B"
}

// The ids of the built-in services of the catalog
// (docs/data-model.md, "Services"), defined here once for the role catalog,
// the features and the tests. The file service's assignments have typed
// settings.
const (
	TenantManagementID = "tenant-management"
	AuthServiceID      = "auth-service"
	ServiceSettingID   = "service-setting"
	FileServiceID      = "file-service"
	MessagingServiceID = "messaging-service"
	APIServiceID       = "api-service"
	BackupServiceID    = "backup-service"
)

// How a service of the catalog is reached by a tenant.
const (
	// AccessIncluded is a built-in service every tenant has without an
	// assignment (tenant management, authentication, service settings).
	AccessIncluded = "included"
	// AccessAssigned is a service whose features a tenant uses only while
	// it is assigned (files, messaging, backups, the API and its keys;
	// services the operator adds).
	AccessAssigned = "assigned"
)

// ServiceAccess says how a tenant reaches the service with the given id:
// AccessIncluded or AccessAssigned.
func ServiceAccess(serviceID string) string {
	switch serviceID {
	case TenantManagementID, AuthServiceID, ServiceSettingID:
		return AccessIncluded
	default:
		return AccessAssigned
	}
}

// ServiceInput is what the catalog form edits.
type ServiceInput struct {
	Name           string
	Description    string
	Version        string
	BaseURL        string
	RoleEndpoint   string
	HealthEndpoint string
	Category       string
	Icon           string
}

var (
	slugPattern     = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$`)
	endpointPattern = regexp.MustCompile(`^/[A-Za-z0-9._~!$&'()*+,;=:@/%-]*$`)
)

// Validate checks a catalog entry; id is checked too when not empty (a new
// service).
func (in *ServiceInput) Validate(id string, creating bool) error {
	in.Name, in.Description, in.Version = strings.TrimSpace(in.Name), strings.TrimSpace(in.Description), strings.TrimSpace(in.Version)
	in.BaseURL, in.RoleEndpoint, in.HealthEndpoint = strings.TrimSpace(in.BaseURL), strings.TrimSpace(in.RoleEndpoint), strings.TrimSpace(in.HealthEndpoint)
	in.Category, in.Icon = strings.TrimSpace(in.Category), strings.TrimSpace(in.Icon)
	f := Fields{}
	if creating && (!slugPattern.MatchString(id) || id == "new" || id == "usage") {
		f["id"] = "validation.service_id" // new and usage name pages of the catalog
	}
	if msg := CheckName(in.Name); msg != "" {
		f["name"] = msg
	}
	if len([]rune(in.Description)) > 500 {
		f["description"] = "validation.too_long"
	}
	if len(in.Version) > 32 {
		f["version"] = "validation.too_long"
	}
	if in.BaseURL != "" {
		u, err := url.Parse(in.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			f["baseUrl"] = "validation.base_url"
		} else {
			in.BaseURL = strings.TrimSuffix(in.BaseURL, "/")
		}
	}
	for field, v := range map[string]string{"roleEndpoint": in.RoleEndpoint, "healthEndpoint": in.HealthEndpoint} {
		if v != "" && (!endpointPattern.MatchString(v) || len(v) > 200) {
			f[field] = "validation.endpoint"
		}
	}
	if len(in.Category) > 50 || len(in.Icon) > 200 {
		f["category"] = "validation.too_long"
	}
	if len(f) > 0 {
		return Invalid(f)
	}
	return nil
}

// A ConfigField is a typed setting a service declares for its
// assignments: a limit the service enforces. Kanri's own services take
// only these; a service of the operator's catalog (which Kanri does not
// run) takes its config as a JSON object.
type ConfigField struct {
	Key  string
	Kind string // "size": an amount of bytes written as 100GB, 10MB; "count": a whole number
}

// Setting kinds.
const (
	KindSize  = "size"
	KindCount = "count"
)

// MaxCountSetting is the largest a count setting may be.
const MaxCountSetting = 1_000_000

// CountSetting reads a count setting of an assignment's config: 0 when it
// is absent or not a whole number from 1 to MaxCountSetting (no limit).
// Earlier versions stored it as free JSON, a number or a string.
func CountSetting(config map[string]any, key string) int {
	var n float64
	switch v := config[key].(type) {
	case int:
		n = float64(v)
	case float64:
		n = v
	case json.Number:
		n, _ = v.Float64()
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0
		}
		n = float64(i)
	}
	if n < 1 || n > MaxCountSetting || n != float64(int(n)) {
		return 0
	}
	return int(n)
}

// AssignmentInput is what the assignment form edits. Config holds the
// typed fields as typed; ConfigJSON the config of a service without any.
type AssignmentInput struct {
	ServiceID  string
	ExpiresAt  string // a date (2026-12-31, the end of that day in the tenant's time zone) or an ISO 8601 instant; "" for none
	Config     map[string]string
	ConfigJSON string
}

// PrettyJSON writes a config object indented, as the form shows it.
func PrettyJSON(v map[string]any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}

// maxConfigDepth is how deeply a free JSON config may nest: a config is
// settings, and a form shows it; 3,000 nested arrays rendered 18 MB.
const maxConfigDepth = 8

// depth returns how deeply v nests (a scalar is 0).
func depth(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			d = max(d, depth(e))
		}
		return d + 1
	case []any:
		for _, e := range v {
			d = max(d, depth(e))
		}
		return d + 1
	}
	return 0
}

// maxExactInteger is the largest integer a float64 (what a stored JSON
// number is read back as) holds exactly.
const maxExactInteger = 1 << 53

// exactNumbers returns v (decoded with UseNumber) with its numbers as the
// float64s they will be read back as, and whether every one reads back as
// written: a number too large for a float64 would make the document
// unreadable, an integer past 2^53 would change.
func exactNumbers(v any) (any, bool) {
	switch v := v.(type) {
	case json.Number:
		return exactNumber(v)
	case map[string]any:
		for k, e := range v {
			var ok bool
			if v[k], ok = exactNumbers(e); !ok {
				return nil, false
			}
		}
	case []any:
		for i, e := range v {
			var ok bool
			if v[i], ok = exactNumbers(e); !ok {
				return nil, false
			}
		}
	}
	return v, true
}

func exactNumber(n json.Number) (float64, bool) {
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	if i, err := n.Int64(); err == nil && (i > maxExactInteger || i < -maxExactInteger) {
		return 0, false
	} else if err != nil && !strings.ContainsAny(n.String(), ".eE") {
		return 0, false // an integer past int64
	}
	return f, true
}

// Parse validates the input and returns the config to store and the
// expiry. An expiry given as a date is the end of that day in loc, the
// tenant's time zone (DayEndIn).
func (in *AssignmentInput) Parse(loc *time.Location, fields []ConfigField, own bool) (map[string]any, Time, error) {
	f := Fields{}
	var expires Time
	if e := strings.TrimSpace(in.ExpiresAt); e != "" {
		if d, err := DayEndIn(e, loc); err == nil {
			expires = d
		} else if t, err := time.Parse(time.RFC3339, e); err == nil {
			expires = NewTime(t)
		} else {
			f["expiresAt"] = "validation.date"
		}
	}
	config := map[string]any{}
	if own {
		sizes := map[string]int64{}
		for _, cf := range fields {
			v := strings.TrimSpace(in.Config[cf.Key])
			if v == "" {
				continue
			}
			if cf.Kind == KindCount {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 || n > MaxCountSetting {
					f["config."+cf.Key] = "validation.count"
					continue
				}
				config[cf.Key] = n
				continue
			}
			n, err := ParseSize(v)
			if err != nil || n == 0 {
				f["config."+cf.Key] = "validation.size"
				continue
			}
			sizes[cf.Key] = n
			config[cf.Key] = FormatSize(n)
		}
		if in.ServiceID == FileServiceID && sizes["maxStorage"] > 0 && sizes["maxFileSize"] > sizes["maxStorage"] {
			f["config.maxFileSize"] = "validation.file_size_over_storage"
		}
	} else if j := strings.TrimSpace(in.ConfigJSON); j != "" {
		dec := json.NewDecoder(bytes.NewReader([]byte(j)))
		dec.UseNumber()
		if err := dec.Decode(&config); err != nil || dec.More() {
			f["configJson"] = "validation.json_object"
		} else if len(j) > 16<<10 {
			f["configJson"] = "validation.too_long"
		} else if _, ok := exactNumbers(config); !ok {
			f["configJson"] = "validation.json_number"
		} else if depth(config) > maxConfigDepth {
			f["configJson"] = "validation.json_depth"
		}
	}
	if len(f) > 0 {
		return nil, Time{}, Invalid(f)
	}
	if len(config) == 0 {
		config = nil
	}
	return config, expires, nil
}

// MaxNameLength is the most characters the name of a service or an API key
// holds.
const MaxNameLength = 100

// CheckName returns the catalog key of what is wrong with a required name
// of at most MaxNameLength characters, or "" when it is fine: an empty
// name asks for a name, a long one for a shorter one.
func CheckName(name string) string {
	switch {
	case name == "":
		return "validation.name_required"
	case len([]rune(name)) > MaxNameLength:
		return "validation.name_length"
	}
	return ""
}

// TypeLimitGuard is the type of the guards that keep a tenant's count of
// something (its channels, its backup jobs) within a setting's limit.
const TypeLimitGuard = "limit_guard"

// LimitGuard serialises the creations of one kind of a tenant's
// documents while a limit on their number is set: each creation writes it
// at the version it read, so creators racing see each other's creations
// (store.CreateWithin).
type LimitGuard struct {
	Doc
	Version int `json:"version"`
}
