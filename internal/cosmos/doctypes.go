package cosmos

import (
	"time"

	"github.com/kanri/kanri/internal/doctype"
	"github.com/kanri/kanri/internal/kanri"
)

// DocTypes are the documents the Cosmos DB driver writes itself: the
// events between instances (docs/architecture.md, "Document types").
var DocTypes = []doctype.Type{
	{
		Name: typeEvent, Container: kanri.ContainerMessaging, Of: &eventDoc{},
		Backup:    doctype.NotBackedUp("a live event on its way to the other instances"),
		Retention: doctype.Retention{TTL: eventTTL * time.Second},
	},
}
