package orders

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
)

// The schemas-* servers' input schemas: nested objects, arrays, enums,
// patterns, ranges and required fields, for the argument generator to
// meet. They only validate and echo; they call no upstream.
const (
	RichCreateSchema = `{"type":"object","properties":{
  "sku":{"type":"string","pattern":"^SKU-[0-9]{3}$"},
  "qty":{"type":"integer","minimum":1,"maximum":9},
  "shipping":{"type":"object","properties":{
    "speed":{"type":"string","enum":["standard","express"]},
    "address":{"type":"object","properties":{
      "street":{"type":"string","minLength":3},
      "zip":{"type":"string","pattern":"^[0-9]{5}$"},
      "country":{"type":"string","enum":["US","FR","DE"]}},
      "required":["street","zip","country"]}},
    "required":["speed","address"]},
  "lines":{"type":"array","minItems":1,"items":{"type":"object","properties":{
    "sku":{"type":"string"},"qty":{"type":"integer","minimum":1}},"required":["sku","qty"]}},
  "tags":{"type":"array","items":{"type":"string","enum":["gift","fragile"]}},
  "note":{"type":"string"}},
 "required":["sku","qty","shipping","lines"]}`
	RichListSchema = `{"type":"object","properties":{
  "sku":{"type":"string","pattern":"^SKU-[0-9]{3}$"},
  "status":{"type":"string","enum":["open","shipped","cancelled"]},
  "since":{"type":"string","format":"date"},
  "page":{"type":"object","properties":{"size":{"type":"integer","minimum":1,"maximum":50}},"required":["size"]}},
 "required":["sku","status","page"]}`
)

// RichOrder is create_order's input, as a server would decode it.
type RichOrder struct {
	SKU      string `json:"sku"`
	Qty      int    `json:"qty"`
	Shipping struct {
		Speed   string `json:"speed"`
		Address struct {
			Street  string `json:"street"`
			Zip     string `json:"zip"`
			Country string `json:"country"`
		} `json:"address"`
	} `json:"shipping"`
	Lines []struct {
		SKU string `json:"sku"`
		Qty int    `json:"qty"`
	} `json:"lines"`
	Tags []string `json:"tags"`
	Note string   `json:"note"`
}

// RichQuery is list_orders' input.
type RichQuery struct {
	SKU    string `json:"sku"`
	Status string `json:"status"`
	Since  string `json:"since"`
	Page   *struct {
		Size int `json:"size"`
	} `json:"page"`
}

var (
	skuRE = regexp.MustCompile(`^SKU-[0-9]{3}$`)
	zipRE = regexp.MustCompile(`^[0-9]{5}$`)
)

// Check is the validation an mcp-go server writes by hand (mcp-go does
// not apply the schema): every rule of RichCreateSchema.
func (o RichOrder) Check() error {
	a := o.Shipping.Address
	switch {
	case !skuRE.MatchString(o.SKU):
		return fmt.Errorf("sku %q must look like SKU-123", o.SKU)
	case o.Qty < 1 || o.Qty > 9:
		return fmt.Errorf("qty %d must be 1 to 9", o.Qty)
	case !slices.Contains([]string{"standard", "express"}, o.Shipping.Speed):
		return fmt.Errorf("shipping.speed %q must be standard or express", o.Shipping.Speed)
	case len(a.Street) < 3 || !zipRE.MatchString(a.Zip) || !slices.Contains([]string{"US", "FR", "DE"}, a.Country):
		return fmt.Errorf("shipping.address %+v needs a street, a 5-digit zip and a country of US, FR, DE", a)
	case len(o.Lines) < 1:
		return fmt.Errorf("lines needs at least one line")
	}
	for _, l := range o.Lines {
		if l.SKU == "" || l.Qty < 1 {
			return fmt.Errorf("each line needs a sku and a qty of at least 1")
		}
	}
	for _, t := range o.Tags {
		if t != "gift" && t != "fragile" {
			return fmt.Errorf("tag %q must be gift or fragile", t)
		}
	}
	return nil
}

// Check validates list_orders' input by hand.
func (q RichQuery) Check() error {
	switch {
	case !skuRE.MatchString(q.SKU):
		return fmt.Errorf("sku %q must look like SKU-123", q.SKU)
	case !slices.Contains([]string{"open", "shipped", "cancelled"}, q.Status):
		return fmt.Errorf("status %q must be open, shipped or cancelled", q.Status)
	case q.Page == nil || q.Page.Size < 1 || q.Page.Size > 50:
		return fmt.Errorf("page.size must be 1 to 50")
	}
	return nil
}

// Echo is the reply to a valid call.
func Echo(tool string, v any) string {
	b, _ := json.Marshal(v)
	return tool + " accepted " + string(b)
}
