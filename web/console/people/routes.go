package people

import (
	"github.com/kanri/kanri/internal/role"
	"github.com/kanri/kanri/views"
	"github.com/kanri/kanri/web/console"
	"github.com/kanri/kanri/web/httpkit"
)

// Routes are the pages of the sign-in, one's account and two-factor sign-in, and the tenant's users and roles.
func (s *Pages) Routes(g console.Groups) []console.Route {
	pk, sso := passkeyPages{s}, ssoPages{s}
	return []console.Route{
		console.Get(g.Public, "/login", httpkit.RoutePublic, s.loginForm),
		console.Post(g.Public, "/login", httpkit.RoutePublic, s.login),
		console.Get(g.Public, "/login/2fa", httpkit.RoutePublic, s.secondFactorForm),
		console.Post(g.Public, "/login/2fa", httpkit.RoutePublic, s.secondFactor),
		console.Post(g.Public, "/login/2fa/cancel", httpkit.RoutePublic, s.cancelSecondFactor),
		console.Post(g.Public, "/login/2fa/passkey/options", httpkit.RoutePublic, pk.stepOptions),
		console.Post(g.Public, "/login/2fa/passkey", httpkit.RoutePublic, pk.step),
		console.Post(g.Public, "/login/passkey/options", httpkit.RoutePublic, pk.signInOptions),
		console.Post(g.Public, "/login/passkey", httpkit.RoutePublic, pk.signIn),
		console.Get(g.Public, "/login/sso", httpkit.RoutePublic, sso.form),
		console.Get(g.Public, "/login/sso/start", httpkit.RoutePublic, sso.start),
		console.Get(g.Public, "/login/sso/callback", httpkit.RoutePublic, sso.callback),
		console.Post(g.Public, "/lang", httpkit.RoutePublic, s.setLang),
		console.Post(g.Public, "/theme", httpkit.RoutePublic, s.setTheme),
		console.Get(g.SignedIn, "/", httpkit.RouteSignedIn, s.home),
		console.Post(g.SignedIn, "/logout", httpkit.RouteSignedIn, s.logout),
		console.Get(g.SignedIn, "/account", httpkit.RouteSignedIn, s.account),
		console.Post(g.SignedIn, "/account/password", httpkit.RouteSignedIn, s.changePassword),
		console.Post(g.SignedIn, "/account/sessions/:session/end", httpkit.RouteSignedIn, s.endOwnSession),
		console.Post(g.SignedIn, "/account/sessions/end-others", httpkit.RouteSignedIn, s.endOtherSessions),
		console.Post(g.SignedIn, "/account/profile", httpkit.RouteSignedIn, s.updateOwnProfile),
		console.Post(g.SignedIn, "/account/avatar", httpkit.RouteSignedIn, s.uploadOwnAvatar),
		console.Get(g.SignedIn, "/account/avatar", httpkit.RouteSignedIn, s.ownAvatar),
		console.Get(g.SignedIn, "/account/2fa", httpkit.RouteSignedIn, s.twoFactorPage),
		console.Post(g.SignedIn, "/account/2fa/setup", httpkit.RouteSignedIn, s.setupTwoFactor),
		console.Post(g.SignedIn, "/account/2fa/confirm", httpkit.RouteSignedIn, s.confirmTwoFactor),
		console.Post(g.SignedIn, "/account/2fa/disable", httpkit.RouteSignedIn, s.disableTwoFactor),
		console.Post(g.SignedIn, "/account/passkeys/options", httpkit.RouteSignedIn, pk.addOptions),
		console.Post(g.SignedIn, "/account/passkeys", httpkit.RouteSignedIn, pk.add),
		console.Post(g.SignedIn, "/account/passkeys/:passkey/remove", httpkit.RouteSignedIn, pk.remove),
		console.Get(g.Staff, "/switch", role.TenantsRead, s.switchTenant),
		console.Get(g.Tenant, "/users", role.UsersRead, s.listUsers),
		console.Get(g.Tenant, "/users/new", role.UsersCreate, s.newUser),
		console.NoSupport(console.Post(g.Tenant, "/users", role.UsersCreate, s.createUser)),
		console.Get(g.Tenant, "/users/:id/edit", role.UsersUpdate, s.editUser),
		console.Post(g.Tenant, "/users/:id", role.UsersUpdate, s.updateUser),
		console.Post(g.Tenant, "/users/:id/deactivate", role.UsersUpdate, s.deactivateUser),
		console.Post(g.Tenant, "/users/:id/reactivate", role.UsersUpdate, s.reactivateUser),
		console.Post(g.Tenant, "/users/:id/unlock", role.UsersUpdate, s.unlockUser),
		console.NoSupport(console.Post(g.Tenant, "/users/:id/password", role.UsersUpdate, s.resetPassword)),
		console.Post(g.Tenant, "/users/:id/sessions/end", role.UsersUpdate, s.endUserSessions),
		console.NoSupport(console.Post(g.Tenant, "/users/:id/2fa/reset", role.UsersUpdate, s.resetTwoFactor)),
		console.Post(g.Tenant, "/users/:id/profile", role.UsersUpdate, s.updateProfile),
		console.Post(g.Tenant, "/users/:id/avatar", role.UsersUpdate, s.uploadAvatar),
		console.Get(g.Tenant, "/users/:id/avatar", role.UsersRead, s.avatar),
		console.Post(g.Tenant, "/users/:id/delete", role.UsersDelete, s.deleteUser),
		console.Get(g.Tenant, "/roles", role.RolesRead, s.listRoles),
		console.Get(g.Tenant, "/roles/:service/:role", role.RolesRead, s.roleHolders),
		console.Get(g.Tenant, "/users/:id/roles", role.RolesRead, s.userRoles),
		console.Post(g.Tenant, "/users/:id/roles", role.RolesUpdate, s.assignRole),
		console.Post(g.Tenant, "/users/:id/roles/remove", role.RolesUpdate, s.removeRole),
	}
}

// Nav are the feature's entries of the side navigation.
func (s *Pages) Nav() []views.NavEntry {
	return []views.NavEntry{
		{Key: "users", LabelKey: "nav.users", Path: views.UsersPath, Perm: role.UsersRead, Order: 10},
		{Key: "roles", LabelKey: "nav.roles", Path: views.RolesPath, Perm: role.RolesRead, Order: 20},
	}
}
