package user

import "strings"

// securityBlock upgrades a User 1.0 to 1.1: the security block (failed
// sign-ins, lockout), and isActive, which defaulted to true.
func securityBlock(doc map[string]any) error {
	if _, ok := doc["isActive"]; !ok {
		doc["isActive"] = true
	}
	if _, ok := doc["security"].(map[string]any); !ok {
		doc["security"] = map[string]any{"failedLoginAttempts": 0}
	}
	return nil
}

// ProfileBlock upgrades a User 1.1 to 1.2: the profile block, empty but
// for the first and last names, which a display name of two words
// ("Hanako Yamada") gives; one of another shape gives none.
func ProfileBlock(doc map[string]any) error {
	if _, ok := doc["profile"].(map[string]any); ok {
		return nil
	}
	p := map[string]any{"firstName": "", "lastName": "", "phoneNumber": "", "department": "", "jobTitle": "", "avatarUrl": ""}
	if name, _ := doc["displayName"].(string); name != "" {
		if words := strings.Fields(name); len(words) == 2 {
			p["firstName"], p["lastName"] = words[0], words[1]
		}
	}
	doc["profile"] = p
	return nil
}
