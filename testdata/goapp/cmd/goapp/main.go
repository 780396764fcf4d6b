// Command goapp imports "sku=name" lines from its arguments into a catalog.
package main

import (
	"fmt"
	"os"

	"example.com/goapp/service"
	"example.com/goapp/store/memstore"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(args []string) error {
	c := service.NewCatalog(memstore.New())
	n, err := c.Import(args)
	if err != nil {
		return fmt.Errorf("goapp: %w", err)
	}
	fmt.Println(service.Banner, n)
	return nil
}
