package store

import (
	"errors"
	"strings"

	"github.com/mnemo-console/mnemo/governance"
	sqlite "modernc.org/sqlite"
)

// mapError turns constraint violations into governance.ECONFLICT errors; it is
// the only place where driver errors are interpreted.
func mapError(err error, what string) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) && strings.Contains(se.Error(), "constraint failed") {
		return governance.Errorf(governance.ECONFLICT, "%s conflicts with an existing record.", what)
	}
	return err
}
