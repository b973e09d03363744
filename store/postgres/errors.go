package postgres

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mnemo-console/mnemo/governance"
)

// mapError turns integrity-constraint violations (SQLSTATE class 23:
// unique, foreign key, check, not null) into governance.ECONFLICT errors,
// as the SQLite store does for "constraint failed"; it is the only place
// where driver errors are interpreted.
func mapError(err error, what string) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && strings.HasPrefix(pe.Code, "23") {
		return governance.Errorf(governance.ECONFLICT, "%s conflicts with an existing record.", what)
	}
	return err
}
