package dev.conch.spring.fence;

import org.springframework.data.jpa.repository.JpaRepository;

/** Fenced notes, through Spring Data JPA. */
public interface FencedNoteRepository extends JpaRepository<FencedNote, Long> {}
