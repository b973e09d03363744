package model

import (
	"context"
	"time"
)

// SetSleep replaces the wait between attempts, so tests see the delays a
// client chose without waiting them.
func SetSleep(c *Client, f func(context.Context, time.Duration) error) { c.sleep = f }
