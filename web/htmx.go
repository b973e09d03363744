package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// htmx request and response headers.
const (
	hxRequest        = "HX-Request"
	hxBoosted        = "HX-Boosted"
	hxTarget         = "HX-Target"
	hxHistoryRestore = "HX-History-Restore-Request"
	hxRedirect       = "HX-Redirect"
	hxRetarget       = "HX-Retarget"
	hxReswap         = "HX-Reswap"
)

// isHTMX reports whether htmx sent the request.
func isHTMX(c echo.Context) bool {
	return c.Request().Header.Get(hxRequest) == "true"
}

// isPartial reports whether the response will be swapped into an existing
// page: an htmx request that is neither boosted nor a history restore (both
// of those need the whole page).
func isPartial(c echo.Context) bool {
	h := c.Request().Header
	return h.Get(hxRequest) == "true" && h.Get(hxBoosted) != "true" && h.Get(hxHistoryRestore) != "true"
}

// hxTargets reports whether a partial request will replace the element with
// the given id; handlers then render only that partial.
func hxTargets(c echo.Context, id string) bool {
	return isPartial(c) && c.Request().Header.Get(hxTarget) == id
}

// redirect sends the browser to url after a successful action: 303 for a
// normal request (POST-redirect-GET), HX-Redirect for htmx.
func redirect(c echo.Context, url string) error {
	if isHTMX(c) {
		c.Response().Header().Set(hxRedirect, url)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, url)
}

// retargetError makes htmx put an error partial into the page's error area
// instead of the element the request meant to replace.
func retargetError(c echo.Context) {
	c.Response().Header().Set(hxRetarget, "#htmx-error")
	c.Response().Header().Set(hxReswap, "innerHTML")
}
