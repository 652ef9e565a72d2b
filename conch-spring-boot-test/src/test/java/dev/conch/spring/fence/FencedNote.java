package dev.conch.spring.fence;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;

/** A row of a table with the fence column: its writes carry their term's token to the trigger. */
@Entity
@EntityListeners(FenceTokenEntityListener.class)
public class FencedNote {

  @Id @GeneratedValue private Long id;

  private String text;

  @FenceToken private Long fenceToken;

  protected FencedNote() {}

  FencedNote(String text) {
    this.text = text;
  }

  FencedNote(String text, long fenceToken) {
    this.text = text;
    this.fenceToken = fenceToken;
  }

  public String getText() {
    return this.text;
  }

  public Long getFenceToken() {
    return this.fenceToken;
  }

  void setText(String text) {
    this.text = text;
  }
}
