package kanri

// APIKey lets a program call a tenant's APIs (spec §7.1). Only the SHA-256
// hash of the key and its prefix are stored (spec §13.1).
type APIKey struct {
	Doc
	Name            string   `json:"name"`
	KeyHash         string   `json:"keyHash"`
	KeyPrefix       string   `json:"keyPrefix"`
	Scopes          []string `json:"scopes"`
	RateLimit       int      `json:"rateLimit"`
	RateLimitWindow string   `json:"rateLimitWindow"`
	IsActive        bool     `json:"isActive"`
	CreatedBy       string   `json:"createdBy"`
	CreatedAt       Time     `json:"createdAt"`
	LastUsedAt      Time     `json:"lastUsedAt"`
	ExpiresAt       Time     `json:"expiresAt"`
}

// APIUsage is one API call (spec §7.2). It expires after 90 days.
type APIUsage struct {
	Doc
	APIKeyID     string `json:"apiKeyId"`
	Endpoint     string `json:"endpoint"`
	Method       string `json:"method"`
	StatusCode   int    `json:"statusCode"`
	ResponseTime int    `json:"responseTime"`
	RequestSize  int64  `json:"requestSize"`
	ResponseSize int64  `json:"responseSize"`
	ClientIP     string `json:"clientIp"`
	UserAgent    string `json:"userAgent"`
	Timestamp    Time   `json:"timestamp"`
	TTL          int    `json:"ttl,omitempty"`
}

// APIUsageAggregate sums one API key's calls over one month (spec §7.3).
type APIUsageAggregate struct {
	Doc
	APIKeyID        string           `json:"apiKeyId"`
	Period          string           `json:"period"`
	TotalCalls      int64            `json:"totalCalls"`
	SuccessCalls    int64            `json:"successCalls"`
	ErrorCalls      int64            `json:"errorCalls"`
	AvgResponseTime int              `json:"avgResponseTime"`
	TotalBandwidth  int64            `json:"totalBandwidth"`
	TopEndpoints    []map[string]int `json:"topEndpoints"`
}
