package governance

import "encoding/json"

// StoreNotPlaced is np as the stores keep it (a candidate's
// WhyNotPlaced): JSON, "" for nil.
func StoreNotPlaced(np *NotPlaced) string {
	if np == nil {
		return ""
	}
	b, err := json.Marshal(np)
	if err != nil {
		return ""
	}
	return string(b)
}

// ParseNotPlaced reads what StoreNotPlaced wrote; nil for "" (a
// candidate whose reason names no clause, or one stored before the
// clause was kept) and for anything unreadable.
func ParseNotPlaced(stored string) *NotPlaced {
	if stored == "" {
		return nil
	}
	var np NotPlaced
	if json.Unmarshal([]byte(stored), &np) != nil || np.Clause == "" && np.Reason == "" {
		return nil
	}
	return &np
}
