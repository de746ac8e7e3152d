package kanri

// Service is an entry of the system-wide service catalog (spec §4.1). It
// lives in the _system partition; its id is the service id.
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

// Service assignment statuses (spec §4.2.1).
const (
	AssignmentActive    = "active"
	AssignmentSuspended = "suspended"
	AssignmentExpired   = "expired"
)

// ServiceAssignment makes a service available to a tenant (spec §4.2).
type ServiceAssignment struct {
	Doc
	ServiceID   string            `json:"serviceId"`
	Status      string            `json:"status"`
	Config      map[string]string `json:"config,omitempty"`
	AssignedBy  string            `json:"assignedBy"`
	AssignedAt  Time              `json:"assignedAt"`
	ActivatedAt Time              `json:"activatedAt"`
	ExpiresAt   Time              `json:"expiresAt"`
}

// ServiceUsage is one tenant's use of one service in one month (spec §4.3).
type ServiceUsage struct {
	Doc
	ServiceID   string         `json:"serviceId"`
	Period      string         `json:"period"`
	Metrics     map[string]any `json:"metrics"`
	LastUpdated Time           `json:"lastUpdated"`
}
