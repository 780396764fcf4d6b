;;; Drives one LSP session from Emacs in batch mode with eglot (Emacs 28,
;;; eglot 1.9, as Debian packages them) and writes what it saw as JSON.
;;;
;;; The Go test writes the configuration (JSON) and sets
;;; LSPGRAPH_E2E_CONFIG to its path:
;;;   cmd     the server command (lspgraph proxy --store DIR -- gopls)
;;;   file    the file to open
;;;   line    a 1-based line of it, and needle a word on that line: the
;;;           definition is asked with point on the word's last letter
;;;   refs_line, refs_needle
;;;           where to ask for references through xref (point on the
;;;           word's first letter); the lens of that line is the one run
;;;   readme_lens
;;;           the README's lens snippet, evaluated as written with point
;;;           on the references line once the proxy's lenses show
;;;   out     where to write the results
;;; Emacs 28 has no go-mode; a bare derived mode stands in (eglot names the
;;; language "go" after it).
(require 'eglot)
(require 'json)
(require 'xref)
(require 'seq)
(define-derived-mode go-mode prog-mode "Go")
(let* ((cfg (with-temp-buffer (insert-file-contents (getenv "LSPGRAPH_E2E_CONFIG")) (json-parse-buffer :object-type 'alist)))
       (out (alist-get 'out cfg))
       (results '()))
  (setq eglot-server-programs (list (cons 'go-mode (append (alist-get 'cmd cfg) nil))))
  (setq eglot-sync-connect t eglot-connect-timeout 60 eglot-events-buffer-size 0)
  ;; Every request may wait for a server loading on a busy machine; jsonrpc's
  ;; default is 10 s.
  (setq jsonrpc-default-request-timeout 120)
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
    ;; References as M-? finds them: xref through eglot's backend.
    (goto-char (point-min))
    (forward-line (1- (alist-get 'refs_line cfg)))
    (search-forward (alist-get 'refs_needle cfg))
    (goto-char (match-beginning 0))
    (push (cons "references"
                (vconcat (mapcar (lambda (item)
                                   (let ((loc (xref-item-location item)))
                                     (list (cons "file" (xref-location-group loc))
                                           (cons "line" (xref-location-line loc)))))
                                 (xref-backend-references 'eglot (xref-backend-identifier-at-point 'eglot)))))
          results)
    ;; Lenses: eglot 1.9 draws none, so ask for them, until the proxy's
    ;; show on the references line (the server may still be loading, the
    ;; proxy's session opening its store), then run that lens's command.
    (let* ((line0 (1- (alist-get 'refs_line cfg)))
           (deadline (+ (float-time) 90))
           lenses ours)
      (while (and (not ours) (< (float-time) deadline))
        (setq lenses (jsonrpc-request server :textDocument/codeLens
                                      (list :textDocument (eglot--TextDocumentIdentifier))))
        (setq ours (seq-find (lambda (l)
                               (and (eq (plist-get (plist-get l :data) :lspgraph) t)
                                    (= (plist-get (plist-get (plist-get l :range) :start) :line) line0)))
                             lenses))
        (unless ours (sleep-for 0.25)))
      (push (cons "lenses" (or lenses [])) results)
      (when ours
        (let ((cmd (plist-get ours :command)))
          (push (cons "lens_impact"
                      (jsonrpc-request server :workspace/executeCommand
                                       (list :command (plist-get cmd :command) :arguments (plist-get cmd :arguments))))
                results))
        (push (cons "readme_lens" (eval (car (read-from-string (alist-get 'readme_lens cfg))) t)) results)))
    (push (cons "impact" (jsonrpc-request server :workspace/executeCommand '(:command "lspgraph.impact" :arguments ["Catalog.Save"]))) results)
    (push (cons "status" (jsonrpc-request server :workspace/executeCommand '(:command "lspgraph.status"))) results)
    (with-temp-file out (insert (json-encode results)))
    ;; eglot 1.9 gives shutdown 1.5 s and signals when gopls takes longer.
    (ignore-errors (eglot-shutdown server)))
  (kill-emacs 0))
