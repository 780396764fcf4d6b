;;; Drives one LSP session from Emacs in batch mode with eglot (Emacs 28,
;;; eglot 1.9, as Debian packages them) and writes what it saw as JSON.
;;;
;;; The Go test writes the configuration (JSON) and sets
;;; LSPGRAPH_E2E_CONFIG to its path:
;;;   cmd     the server command (lspgraph proxy --store DIR -- gopls)
;;;   file    the file to open
;;;   line    a 1-based line of it, and needle a word on that line: the
;;;           definition is asked with point on the word's last letter
;;;   out     where to write the results
;;; Emacs 28 has no go-mode; a bare derived mode stands in (eglot names the
;;; language "go" after it).
(require 'eglot)
(require 'json)
(define-derived-mode go-mode prog-mode "Go")
(let* ((cfg (with-temp-buffer (insert-file-contents (getenv "LSPGRAPH_E2E_CONFIG")) (json-parse-buffer :object-type 'alist)))
       (out (alist-get 'out cfg))
       (results '()))
  (setq eglot-server-programs (list (cons 'go-mode (append (alist-get 'cmd cfg) nil))))
  (setq eglot-sync-connect t eglot-connect-timeout 60 eglot-events-buffer-size 0)
  (find-file (alist-get 'file cfg))
  (go-mode)
  (apply #'eglot (eglot--guess-contact))
  (let ((server (eglot-current-server)))
    (push (cons "connected" (if server t :false)) results)
    (goto-char (point-min))
    (forward-line (1- (alist-get 'line cfg)))
    (search-forward (alist-get 'needle cfg))
    (backward-char 1)
    (push (cons "definition" (jsonrpc-request server :textDocument/definition (eglot--TextDocumentPositionParams))) results)
    (push (cons "impact" (jsonrpc-request server :workspace/executeCommand '(:command "lspgraph.impact" :arguments ["Catalog.Save"]))) results)
    (push (cons "status" (jsonrpc-request server :workspace/executeCommand '(:command "lspgraph.status"))) results)
    (with-temp-file out (insert (json-encode results)))
    ;; eglot 1.9 gives shutdown 1.5 s and signals when gopls takes longer.
    (ignore-errors (eglot-shutdown server)))
  (kill-emacs 0))
