package kanri

// BackupJob is a scheduled backup of a tenant's data (spec §8.1).
type BackupJob struct {
	Doc
	Name          string `json:"name"`
	Description   string `json:"description"`
	Schedule      string `json:"schedule"`
	Target        string `json:"target"`
	RetentionDays int    `json:"retentionDays"`
	IsActive      bool   `json:"isActive"`
	CreatedBy     string `json:"createdBy"`
	CreatedAt     Time   `json:"createdAt"`
	LastRunAt     Time   `json:"lastRunAt"`
	NextRunAt     Time   `json:"nextRunAt"`
}

// BackupHistory is one run of a backup job (spec §8.2). It expires after a
// year (spec §10.1).
type BackupHistory struct {
	Doc
	JobID           string  `json:"jobId"`
	Status          string  `json:"status"`
	BackupSize      int64   `json:"backupSize"`
	StorageLocation string  `json:"storageLocation"`
	ItemsBackedUp   int     `json:"itemsBackedUp"`
	StartedAt       Time    `json:"startedAt"`
	CompletedAt     Time    `json:"completedAt"`
	Duration        int     `json:"duration"`
	ErrorMessage    *string `json:"errorMessage"`
	TTL             int     `json:"ttl,omitempty"`
}
