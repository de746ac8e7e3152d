package kanri

// Channel is a conversation space within a tenant (spec §6.1).
type Channel struct {
	Doc
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	Description string `json:"description"`
	IsPrivate   bool   `json:"isPrivate"`
	MemberCount int    `json:"memberCount"`
	CreatedBy   string `json:"createdBy"`
	CreatedAt   Time   `json:"createdAt"`
}

// Message is one post in a channel (spec §6.2). Messages expire after a
// year (spec §10.1).
type Message struct {
	Doc
	ChannelID   string              `json:"channelId"`
	Content     string              `json:"content"`
	SenderID    string              `json:"senderId"`
	SenderName  string              `json:"senderName"`
	SentAt      Time                `json:"sentAt"`
	EditedAt    Time                `json:"editedAt"`
	Reactions   map[string][]string `json:"reactions,omitempty"`
	Attachments []string            `json:"attachments"`
	TTL         int                 `json:"ttl,omitempty"`
}

// ChannelMember records a user's membership of a channel (spec §6.3).
type ChannelMember struct {
	Doc
	ChannelID  string `json:"channelId"`
	UserID     string `json:"userId"`
	Role       string `json:"role"`
	JoinedAt   Time   `json:"joinedAt"`
	LastReadAt Time   `json:"lastReadAt"`
}
