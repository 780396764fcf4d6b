module example.com/billing

go 1.22

require example.com/pricing v0.0.0

replace example.com/pricing => ../pricing
