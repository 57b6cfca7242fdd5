"""The handlers of every document-02 operation; the app imports each module to register them."""
