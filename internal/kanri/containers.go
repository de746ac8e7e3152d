package kanri

// Container names: one per service of the data model, plus the audit
// container (docs/data-model.md, "Containers").
const (
	ContainerAuth           = "auth"
	ContainerTenant         = "tenant"
	ContainerServiceSetting = "service-setting"
	ContainerFiles          = "file-service"
	ContainerMessaging      = "messaging-service"
	ContainerAPI            = "api-service"
	ContainerBackup         = "backup-service"
	ContainerAudit          = "audit"
)

// DatabaseName is the Cosmos DB database of the data model.
const DatabaseName = "management-app"
