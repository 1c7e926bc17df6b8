import HTTPTypes

extension SessionConfiguration {
    /// Adds a per-task listener after the ones already configured, keeping them: what a product that
    /// observes calls (logging, metrics) uses so that several can be installed on one configuration.
    ///
    /// - Parameter factory: Makes the listener for one task, from the task's first request.
    public mutating func addEventListenerFactory(_ factory: @escaping @Sendable (HTTPRequest) -> any EventListener) {
        guard let existing = eventListenerFactory else {
            eventListenerFactory = factory
            return
        }
        eventListenerFactory = { request in existing(request) + factory(request) }
    }
}
