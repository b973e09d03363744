package auth

import (
	"context"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/governance"
)

// AccountFinder loads an account with its memberships; *store.Store
// satisfies it.
type AccountFinder interface {
	FindAccountByID(ctx context.Context, id int64) (*governance.Account, error)
}

// SessionMiddleware decodes the session cookie once per request.
func (s *Sessions) SessionMiddleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.SetRequest(s.Load(c.Request()))
			return next(c)
		}
	}
}

// LoadUser puts the signed-in account (fresh from the store, so role changes
// apply at once) into the request context. A session naming an account that
// no longer exists is cleared.
func LoadUser(s *Sessions, accounts AccountFinder) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			id, ok := s.AccountID(r)
			if !ok {
				return next(c)
			}
			a, err := accounts.FindAccountByID(r.Context(), id)
			if err == nil && (a.SessionGen != s.Generation(r) || a.Disabled()) {
				// Signed out elsewhere, the password changed since, or an
				// administrator disabled the account.
				err = governance.Errorf(governance.ENOTFOUND, "Session ended.")
			}
			switch governance.ErrorCode(err) {
			case "":
				c.SetRequest(r.WithContext(WithUser(r.Context(), a)))
			case governance.ENOTFOUND:
				if err := s.Logout(c.Response(), r); err != nil {
					return err
				}
			default:
				return err
			}
			return next(c)
		}
	}
}

// RequireLogin rejects anonymous requests with EUNAUTHORIZED; the web error
// handler turns that into a redirect to the login page.
func RequireLogin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if UserFrom(c.Request().Context()) == nil {
			return governance.Errorf(governance.EUNAUTHORIZED, "Please sign in.")
		}
		return next(c)
	}
}

// RequireAdmin rejects anonymous requests with EUNAUTHORIZED and signed-in
// non-admins with EFORBIDDEN.
func RequireAdmin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		a := UserFrom(c.Request().Context())
		if a == nil {
			return governance.Errorf(governance.EUNAUTHORIZED, "Please sign in.")
		}
		if err := governance.Can(governance.AccountActor(a), governance.ActAdminister, governance.Object{}); err != nil {
			return err
		}
		return next(c)
	}
}
