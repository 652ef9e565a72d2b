package dev.conch.spring.fence;

/** The fence on an embedded H2 database under JPA (Hibernate, Spring Data). */
class H2JpaFenceTest extends JpaFenceContract {}
