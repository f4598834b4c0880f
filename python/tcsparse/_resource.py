"""What every object holding memory of the library shares: `with` closes
it, and so does the garbage collector; close() itself is the class's."""


class Resource:
    """A base for classes that define close() (callable twice) and free
    there what they hold."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()
