package web

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
)

// handleMetrics serves the Prometheus metrics (Config.Metrics) to a
// scraper bearing Config.MetricsToken (Authorization: Bearer …) or to a
// signed-in administrator. Anyone else gets 401 (no credentials: a
// scraper is not sent to the login page) or 403. Without a metrics
// handler the route is 404.
func (s *Server) handleMetrics(c echo.Context) error {
	if s.cfg.Metrics == nil {
		return governance.Errorf(governance.ENOTFOUND, "Metrics are not enabled on this console.")
	}
	if s.metricsBearer(c.Request()) {
		s.cfg.Metrics.ServeHTTP(c.Response(), c.Request())
		return nil
	}
	a := auth.UserFrom(c.Request().Context())
	if a == nil {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="mnemo metrics"`)
		return c.String(http.StatusUnauthorized, "metrics need a bearer token (MNEMO_METRICS_TOKEN) or an administrator's session\n")
	}
	if err := governance.Can(governance.AccountActor(a), governance.ActAdminister, governance.Object{}); err != nil {
		return err
	}
	s.cfg.Metrics.ServeHTTP(c.Response(), c.Request())
	return nil
}

// metricsBearer reports whether r bears the configured metrics token.
func (s *Server) metricsBearer(r *http.Request) bool {
	if s.cfg.MetricsToken == "" {
		return false
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.MetricsToken)) == 1
}
